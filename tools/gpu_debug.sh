set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install --no-build-isolation --no-deps . > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
cd /tmp && cp -r $OLDPWD/tests /tmp/gtests
timeout 120 python3 -m pytest -v -x -p no:cacheprovider "/tmp/gtests/test_convert.py::test_copy_bad_shape" 2>&1 | tail -15
timeout 200 cuda-gdb -batch -ex run -ex bt --args python3 -m pytest -q -x -p no:cacheprovider "/tmp/gtests/test_convert.py::test_copy_bad_shape" 2>&1 | grep -v "^\[New Thread\|^\[Thread" | tail -40
timeout 300 python3 -m pytest -q -p no:cacheprovider /tmp/gtests --deselect "/tmp/gtests/test_convert.py::test_copy_bad_shape" 2>&1 | tee $OUT/pytest.txt | tail -40
