// genesis.linalg's decompositions (ops/linalg_decomp.h) in the _C._linalg submodule, and the
// LAPACK search paths genesis/linalg.py hands over (Note [Loading LAPACK] in cpu/lapack.cpp).
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "cpu/lapack.h"
#include "ops/linalg_decomp.h"
#include "python/bindings.h"
#include "python/operand.h"

namespace genesis::python {

namespace {

// torch.return_types' shapes: a named tuple type per op, made once and kept for the life of the
// process (never destroyed: at exit the interpreter is gone).
py::object& return_type(const char* name, py::tuple fields) {
  py::object namedtuple = py::module_::import("collections").attr("namedtuple");
  auto* type = new py::object(namedtuple(name, fields));
  type->attr("__module__") = "genesis.return_types";
  return *type;
}

py::object& slogdet_type() {
  static py::object& type = return_type("linalg_slogdet", py::make_tuple("sign", "logabsdet"));
  return type;
}
py::object& qr_type() {
  static py::object& type = return_type("linalg_qr", py::make_tuple("Q", "R"));
  return type;
}
py::object& svd_type() {
  static py::object& type = return_type("linalg_svd", py::make_tuple("U", "S", "Vh"));
  return type;
}
py::object& eigh_type() {
  static py::object& type =
      return_type("linalg_eigh", py::make_tuple("eigenvalues", "eigenvectors"));
  return type;
}

}  // namespace

void init_linalg_decomp(py::module_& m, py::class_<Tensor>& /*cls*/) {
  py::module_ linalg = m.attr("_linalg").cast<py::module_>();
  static py::handle linalg_error = PyErr_NewExceptionWithDoc(
      "genesis._C.LinAlgError",
      "Raised when a decomposition fails for the input's values: a singular matrix for\n"
      "linalg.solve or linalg.inv, one that is not positive-definite for linalg.cholesky, or\n"
      "no convergence. A RuntimeError, as torch.linalg.LinAlgError.",
      PyExc_RuntimeError, nullptr);
  m.attr("LinAlgError") = linalg_error;
  // Registered after init_errors' translator, so tried before it.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ops::LinAlgError& e) {
      PyErr_SetString(linalg_error.ptr(), e.what());
    }
  });
  linalg.def(
      "solve",
      [](const Tensor& a, const Tensor& b, bool left, py::handle out) {
        return finish_out(ag::linalg_solve(a, b, left), out, "linalg.solve");
      },
      py::arg("A"), py::arg("B"), py::kw_only(), py::arg("left") = true,
      py::arg("out") = py::none());
  linalg.def(
      "inv",
      [](const Tensor& a, py::handle out) {
        return finish_out(ag::linalg_inv(a), out, "linalg.inv");
      },
      py::arg("A"), py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "det",
      [](const Tensor& a, py::handle out) {
        return finish_out(ag::linalg_det(a), out, "linalg.det");
      },
      py::arg("A"), py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "slogdet",
      [](const Tensor& a, py::handle out) {
        auto [sign, logabsdet] = ag::linalg_slogdet(a);
        return finish_tuple_out(slogdet_type(), py::make_tuple(sign, logabsdet), out,
                                "linalg.slogdet");
      },
      py::arg("A"), py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "cholesky",
      [](const Tensor& a, bool upper, py::handle out) {
        return finish_out(ag::linalg_cholesky(a, upper), out, "linalg.cholesky");
      },
      py::arg("A"), py::kw_only(), py::arg("upper") = false, py::arg("out") = py::none());
  linalg.def(
      "qr",
      [](const Tensor& a, const std::string& mode, py::handle out) {
        auto [q, r] = ag::linalg_qr(a, mode);
        return finish_tuple_out(qr_type(), py::make_tuple(q, r), out, "linalg.qr");
      },
      py::arg("A"), py::arg("mode") = "reduced", py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "svd",
      [](const Tensor& a, bool full_matrices, py::handle out) {
        auto [u, s, vh] = ag::linalg_svd(a, full_matrices);
        return finish_tuple_out(svd_type(), py::make_tuple(u, s, vh), out, "linalg.svd");
      },
      py::arg("A"), py::arg("full_matrices") = true, py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "svdvals",
      [](const Tensor& a, py::handle out) {
        return finish_out(ag::linalg_svdvals(a), out, "linalg.svdvals");
      },
      py::arg("A"), py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "eigh",
      [](const Tensor& a, const std::string& uplo, py::handle out) {
        auto [values, vectors] = ag::linalg_eigh(a, uplo);
        return finish_tuple_out(eigh_type(), py::make_tuple(values, vectors), out, "linalg.eigh");
      },
      py::arg("A"), py::arg("UPLO") = "L", py::kw_only(), py::arg("out") = py::none());
  linalg.def(
      "eigvalsh",
      [](const Tensor& a, const std::string& uplo, py::handle out) {
        return finish_out(ag::linalg_eigvalsh(a, uplo), out, "linalg.eigvalsh");
      },
      py::arg("A"), py::arg("UPLO") = "L", py::kw_only(), py::arg("out") = py::none());
  linalg.def("_set_lapack_paths", &cpu::lapack::set_search_paths, py::arg("paths"),
             "Libraries to try for LAPACK after $GENESIS_LAPACK (genesis/linalg.py's search).");
  linalg.def(
      "_lapack_library", []() { return cpu::lapack::describe("linalg"); },
      "The LAPACK library genesis loaded (loading it if needed) and its symbol scheme.");
}

}  // namespace genesis::python
