"""The names of PyTorch that genesis lacks, each under the reason why: test_torch_names.py.

ALLOWED maps each namespace ("torch", "torch.Tensor", "torch.linalg", "torch.special", "torch.nn",
"torch.nn.functional", "torch.nn.init", "torch.nn.utils"; the test says which names of torch
count) to a dict from a reason to the names it covers. A name appears
once per namespace. Reasons starting with "not yet:" name work that fits genesis and is not built;
the others say why a name has no counterpart in genesis as it stands (another backend,
TorchScript, sparse or quantized tensors, complex dtypes, a name PyTorch deprecated ...). Every
reason says what its names are; a catch-all ("not needed") is not a reason.

When genesis gains a name, delete it here: test_allow_list_is_not_stale fails until then, so the
list only shrinks. A name PyTorch adds that genesis lacks fails test_every_missing_name_is_allowed
until it is added here, under a reason. After a change, update the coverage table of
docs/user_guide.md ("Coverage of PyTorch's names"); test_coverage_figure_in_docs prints its rows.
"""

# fmt: off
# Named reasons, most of them used in several namespaces.
COMPLEX = (
    "complex numbers: genesis has no complex dtypes (nor the lazy conjugate and negative bits of "
    "complex views)"
)
COMPLEX_ON_REAL = (
    "not yet: the complex-number API's forms for real tensors (conj and real give the input, "
    "adjoint/H/mH are mT, angle is 0 or pi, is_complex is False)"
)
SPARSE = "sparse tensors (COO, CSR, CSC, BSR, BSC): genesis tensors are dense"
NESTED = "nested (jagged) tensors, torch.nested"
QUANT = "quantization: quantized dtypes, qschemes and quantized kernels"
BACKENDS = (
    "MKLDNN/MPS/XPU/other backends: cuDNN, MIOpen (ROCm), oneDNN (MKLDNN), Vulkan, IPU, MAIA, MTIA,"
    " XLA entry points"
)
NN_FUNCTIONAL = "nn layers' functional forms live in genesis.nn.functional (issue 45)"
REMOVED = (
    "removed from PyTorch: only raises or warns, pointing to the replacement (eig, lstsq, solve, "
    "symeig, matrix_rank; Tensor.volatile, reinforce)"
)
LEGACY_TYPES = (
    "legacy per-dtype tensor and storage classes (torch.FloatTensor, torch.HalfStorage, "
    "Tensor.storage(), Tensor.new()): deprecated in PyTorch for dtype= and untyped_storage()"
)
LAYOUTS = (
    "layouts (torch.strided, torch.layout) and the legacy format: genesis tensors are all "
    "strided, so there is nothing to choose"
)
FFT = "not yet: FFT, STFT and signal windows (there is no genesis.fft)"
DECOMP = (
    "not yet: linear-algebra decompositions and solvers beyond genesis.linalg's (Cholesky solve and"
    " inverse, Householder QR pieces geqrf/orgqr/ormqr, lu_unpack, low-rank SVD and PCA, LOBPCG)"
)
LINALG_ALIASES = (
    "not yet: top-level aliases of genesis.linalg functions (det = linalg.det, slogdet = "
    "linalg.slogdet, inverse = linalg.inv)"
)
MATRIX_FUNCS = (
    "not yet: matrix functions and products (matrix_exp, matrix_power, pinverse, logdet, trace, "
    "addr)"
)
COPY_FORMS = (
    "not yet: the *_copy forms of view ops (the view, then a copy: PyTorch's functionalization "
    "variants)"
)
SCATTER_FORMS = (
    "not yet: the *_scatter inverses of view ops (select_scatter, slice_scatter, diagonal_scatter, "
    "as_strided_scatter)"
)
ELEMENTWISE = (
    "not yet: elementwise math (tan, deg2rad, rad2deg, float_power, fmax, fmin, frexp, ldexp, gcd, "
    "lcm, logaddexp, logit, nextafter, signbit, sinc, xlogy)"
)
SPECIAL_FUNCS = "not yet: special functions at top level (i0, igamma, igammac, mvlgamma)"
ALIASES = (
    "not yet: PyTorch's other names for ops genesis has (positive, row_stack = vstack, ndimension "
    "= dim, nelement = numel)"
)
INPLACE_COMPARE = "not yet: in-place comparisons (t.eq_(u) writes 0 or 1 into t's dtype)"
INPLACE_META = (
    "not yet: in-place changes of shape and strides (squeeze_, unsqueeze_, t_, transpose_, "
    "swapaxes_, as_strided_, set_ and is_set_to, resize_as_)"
)
STATS = "not yet: statistics and distances (cov, corrcoef, dist, renorm)"
SHAPE = (
    "not yet: shape and split ops (as_strided, ravel, hsplit, vsplit, dsplit, split_with_sizes, "
    "unsafe_split/unsafe_chunk, nonzero_static, unravel_index, broadcast_shapes, sum_to_size)"
)
CREATION = (
    "not yet: creation functions (empty_strided, empty_permuted, frombuffer, logspace, "
    "scalar_tensor, fill, block_diag, diagflat, cartesian_prod, combinations, vander, "
    "fill_diagonal_)"
)
QUERIES = (
    "not yet: small queries (is_same_size, is_signed, is_storage, typename, get_device, "
    "is_inference, const_data_ptr, dim_order)"
)
MODULE_LEVEL_METHODS = (
    "not yet: module-level forms of Tensor methods genesis has (torch.abs_(t), torch.clone(t), "
    "torch.detach(t): genesis has t.abs_(), t.clone(), t.detach())"
)
JIT = (
    "TorchScript (torch.jit): its IR, type system, runtime and logging classes; genesis has no "
    "TorchScript"
)
COMPILE = (
    "torch.compile and torch.export: symbolic shapes (SymInt, sym_*) and control-flow operators "
    "(cond, while_loop); genesis has no graph compiler"
)
DISPATCH = (
    "PyTorch's dispatcher internals (DispatchKey, operator Tag, DisableTorchFunction, FatalError)"
)
UNDOCUMENTED_ATEN = (
    "ATen operators PyTorch exposes without documenting them (torch.frobenius_norm, nuclear_norm, "
    "native_norm, rsub, is_distributed; Tensor.is_distributed)"
)
DEPRECATED = (
    "deprecated in PyTorch for another name (cholesky, qr, svd, lu, lu_solve, triangular_solve -> "
    "torch.linalg; chain_matmul -> linalg.multi_dot; ger -> outer; range -> arange; Tensor.resize, "
    "resize_as -> reshape, resize_)"
)

ALLOWED = {
    "torch": {
        JIT: [
            "AVG", "AggregationType", "AliasDb", "AnyType", "Argument", "ArgumentSpec",
            "AwaitType", "Block", "BoolType", "BufferDict", "CallStack", "Capsule", "ClassType",
            "Code", "CompilationUnit", "CompleteArgumentSpec", "ComplexType", "ConcreteModuleType",
            "ConcreteModuleTypeBuilder", "DeepCopyMemoTable", "DeviceObjType", "DictType",
            "EnumType", "ErrorReport", "ExecutionPlan", "FileCheck", "FloatType", "FunctionSchema",
            "Future", "FutureType", "Gradient", "Graph", "GraphExecutorState", "IODescriptor",
            "InferredType", "IntType", "InterfaceType", "JITException", "ListType",
            "LiteScriptModule", "LockingLogger", "ModuleDict", "Node", "NoneType", "NoopLogger",
            "NumberType", "OperatorInfo", "OptionalType", "ParameterDict", "PyObjectType",
            "RRefType", "SUM", "ScriptClass", "ScriptClassFunction", "ScriptDict",
            "ScriptDictIterator", "ScriptDictKeyIterator", "ScriptFunction", "ScriptList",
            "ScriptListIterator", "ScriptMethod", "ScriptModule", "ScriptModuleSerializer",
            "ScriptObject", "ScriptObjectProperty", "StaticModule", "StreamObjType", "StringType",
            "SymBoolType", "SymIntType", "TensorType", "TracingState", "TupleType", "Type",
            "UnionType", "Use", "Value", "fork", "import_ir_module",
            "import_ir_module_from_buffer", "merge_type_from_type_comment", "parse_ir",
            "parse_schema", "parse_type_comment", "unify_type_list", "wait",
        ],
        COMPILE: [
            "SymBool", "SymFloat", "SymInt", "cond", "sym_constrain_range",
            "sym_constrain_range_for_size", "sym_float", "sym_fresh_size", "sym_int", "sym_ite",
            "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum", "while_loop",
        ],
        DISPATCH: [
            "DisableTorchFunction", "DisableTorchFunctionSubclass", "DispatchKey",
            "DispatchKeySet", "ExcludeDispatchKeyGuard", "FatalError", "Tag",
        ],
        (
            "C++ throughput benchmark classes of torch.utils.ThroughputBenchmark (multi-threaded "
            "benchmarking of TorchScript and nn modules)"
        ): [
            "BenchmarkConfig", "BenchmarkExecutionStats", "ThroughputBenchmark",
        ],
        (
            "torch.save's zip-archive internals (genesis.save and genesis.load have a format of "
            "their own)"
        ): [
            "DeserializationStorageContext", "PyTorchFileReader", "PyTorchFileWriter",
            "SerializationStorageContext",
        ],
        LEGACY_TYPES: [
            "BFloat16Storage", "BFloat16Tensor", "BoolStorage", "BoolTensor", "ByteStorage",
            "ByteTensor", "CharStorage", "CharTensor", "DoubleStorage", "DoubleTensor",
            "FloatStorage", "FloatTensor", "HalfStorage", "HalfTensor", "IntStorage", "IntTensor",
            "LongStorage", "LongTensor", "ShortStorage", "ShortTensor", "Storage", "StorageBase",
            "TypedStorage", "set_default_tensor_type",
        ],
        COMPLEX: [
            "ComplexDoubleStorage", "ComplexFloatStorage", "cdouble", "cfloat", "chalf", "complex",
            "complex128", "complex32", "complex64", "conj_physical", "conj_physical_", "imag",
            "is_conj", "is_neg", "polar", "resolve_conj", "resolve_neg", "view_as_complex",
            "view_as_complex_copy", "view_as_real", "view_as_real_copy",
        ],
        COMPLEX_ON_REAL: [
            "adjoint", "angle", "conj", "is_complex", "isreal", "real",
        ],
        SPARSE: [
            "ccol_indices_copy", "col_indices_copy", "crow_indices_copy", "dsmm", "hsmm", "hspmm",
            "indices_copy", "resize_as_sparse_", "row_indices_copy", "saddmm", "smm", "sparse_bsc",
            "sparse_bsc_tensor", "sparse_bsr", "sparse_bsr_tensor", "sparse_compressed_tensor",
            "sparse_coo", "sparse_coo_tensor", "sparse_csc", "sparse_csc_tensor", "sparse_csr",
            "sparse_csr_tensor", "spmm", "sspaddmm", "values_copy",
        ],
        NESTED: [
            "jagged",
        ],
        QUANT: [
            "QInt32Storage", "QInt8Storage", "QUInt2x4Storage", "QUInt4x2Storage", "QUInt8Storage",
            "choose_qparams_optimized", "dequantize", "empty_quantized",
            "fake_quantize_per_channel_affine", "fake_quantize_per_tensor_affine",
            "fbgemm_linear_fp16_weight", "fbgemm_linear_fp16_weight_fp32_activation",
            "fbgemm_linear_int8_weight", "fbgemm_linear_int8_weight_fp32_activation",
            "fbgemm_linear_quantize_weight", "fbgemm_pack_gemm_matrix_fp16",
            "fbgemm_pack_quantized_matrix", "fused_moving_avg_obs_fake_quant", "int_repr",
            "per_channel_affine", "per_channel_affine_float_qparams", "per_channel_symmetric",
            "per_tensor_affine", "per_tensor_symmetric", "q_per_channel_axis",
            "q_per_channel_scales", "q_per_channel_zero_points", "q_scale", "q_zero_point",
            "qint32", "qint8", "qscheme", "quantize_per_channel", "quantize_per_tensor",
            "quantize_per_tensor_dynamic", "quantized_batch_norm", "quantized_gru",
            "quantized_gru_cell", "quantized_lstm", "quantized_lstm_cell", "quantized_max_pool1d",
            "quantized_max_pool2d", "quantized_max_pool3d", "quantized_rnn_relu_cell",
            "quantized_rnn_tanh_cell", "quint2x4", "quint4x2", "quint8",
        ],
        BACKENDS: [
            "cudnn_affine_grid_generator", "cudnn_batch_norm", "cudnn_convolution",
            "cudnn_convolution_add_relu", "cudnn_convolution_relu", "cudnn_convolution_transpose",
            "cudnn_grid_sampler", "cudnn_is_acceptable", "is_vulkan_available",
            "miopen_batch_norm", "miopen_convolution", "miopen_convolution_add_relu",
            "miopen_convolution_relu", "miopen_convolution_transpose", "miopen_ctc_loss",
            "miopen_depthwise_convolution", "miopen_rnn", "mkldnn_adaptive_avg_pool2d",
            "mkldnn_convolution", "mkldnn_linear_backward_weights", "mkldnn_max_pool2d",
            "mkldnn_max_pool3d", "mkldnn_rnn_layer",
        ],
        (
            "flags of PyTorch's own build (LAPACK, MKL, OpenMP, spectral ops, the C++11 ABI), which"
            " say nothing about genesis"
        ): [
            "compiled_with_cxx11_abi", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
        ],
        (
            "PyTorch's deprecated per-device autocast switches; genesis has the device_type forms"
            " (is_autocast_enabled('cpu') ...)"
        ): [
            "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "get_autocast_ipu_dtype",
            "get_autocast_xla_dtype", "is_autocast_cpu_enabled", "is_autocast_ipu_enabled",
            "is_autocast_xla_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
            "set_autocast_gpu_dtype", "set_autocast_ipu_dtype", "set_autocast_ipu_enabled",
            "set_autocast_xla_dtype", "set_autocast_xla_enabled",
        ],
        NN_FUNCTIONAL: [
            "adaptive_avg_pool1d", "adaptive_max_pool1d", "affine_grid_generator", "alpha_dropout",
            "alpha_dropout_", "avg_pool1d", "batch_norm", "batch_norm_backward_elemt",
            "batch_norm_backward_reduce", "batch_norm_elemt", "batch_norm_gather_stats",
            "batch_norm_gather_stats_with_counts", "batch_norm_stats", "batch_norm_update_stats",
            "bilinear", "binary_cross_entropy_with_logits", "celu", "celu_", "channel_shuffle",
            "constant_pad_nd", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
            "conv_transpose2d", "conv_transpose3d", "convolution", "cosine_embedding_loss",
            "cosine_similarity", "ctc_loss", "dropout", "dropout_", "embedding", "embedding_bag",
            "embedding_renorm_", "feature_alpha_dropout", "feature_alpha_dropout_",
            "feature_dropout", "feature_dropout_", "grid_sampler", "grid_sampler_2d",
            "grid_sampler_3d", "group_norm", "gru", "gru_cell", "hardshrink",
            "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm", "lstm", "lstm_cell",
            "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
            "max_pool3d", "native_batch_norm", "native_channel_shuffle", "native_dropout",
            "native_group_norm", "native_layer_norm", "norm_except_dim", "pairwise_distance",
            "pdist", "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss", "prelu", "rms_norm",
            "rnn_relu", "rnn_relu_cell", "rnn_tanh", "rnn_tanh_cell", "rrelu", "rrelu_", "selu",
            "selu_", "threshold", "threshold_", "triplet_margin_loss",
        ],
        DEPRECATED: [
            "chain_matmul", "cholesky", "ger", "lu", "lu_solve", "qr", "range", "svd",
            "triangular_solve",
        ],
        REMOVED: [
            "eig", "lstsq", "matrix_rank", "solve", "symeig",
        ],
        UNDOCUMENTED_ATEN: [
            "frobenius_norm", "is_distributed", "native_norm", "nuclear_norm", "rsub",
        ],
        LAYOUTS: ["layout", "legacy_contiguous_format", "strided"],
        FFT: [
            "bartlett_window", "blackman_window", "hamming_window", "hann_window", "istft",
            "kaiser_window", "stft",
        ],
        DECOMP: [
            "cholesky_inverse", "cholesky_solve", "geqrf", "lobpcg", "lu_unpack", "orgqr", "ormqr",
            "pca_lowrank", "svd_lowrank",
        ],
        LINALG_ALIASES: [
            "det", "inverse", "slogdet",
        ],
        MATRIX_FUNCS: [
            "addr", "logdet", "matrix_exp", "matrix_power", "pinverse", "trace",
        ],
        COPY_FORMS: [
            "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "narrow_copy",
            "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
            "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
            "unsqueeze_copy", "view_copy",
        ],
        SCATTER_FORMS: [
            "as_strided_scatter", "diagonal_scatter", "select_scatter", "slice_inverse",
            "slice_scatter",
        ],
        ELEMENTWISE: [
            "deg2rad", "deg2rad_", "float_power", "fmax", "fmin", "frexp", "gcd", "gcd_", "lcm",
            "lcm_", "ldexp", "ldexp_", "logaddexp", "logaddexp2", "logit", "logit_", "nextafter",
            "rad2deg", "rad2deg_", "signbit", "sinc", "sinc_", "tan", "tan_", "xlogy", "xlogy_",
        ],
        SPECIAL_FUNCS: [
            "i0", "i0_", "igamma", "igammac", "mvlgamma",
        ],
        ALIASES: [
            "positive",
            "row_stack",
        ],
        (
            "not yet: numerical integration and differences (trapezoid, its alias trapz, "
            "cumulative_trapezoid, gradient)"
        ): [
            "cumulative_trapezoid", "gradient", "trapezoid", "trapz",
        ],
        STATS: [
            "corrcoef", "cov", "dist", "renorm",
        ],
        "not yet: histogramdd (genesis has histc and histogram)": [
            "histogramdd",
        ],
        "not yet: isin (membership of elements in a set of values)": [
            "isin",
        ],
        "not yet: hash_tensor (one hash of all elements)": [
            "hash_tensor",
        ],
        "not yet: segment_reduce (reductions over segments of given lengths)": [
            "segment_reduce",
        ],
        SHAPE: [
            "as_strided", "as_strided_", "broadcast_shapes", "dsplit", "hsplit", "nonzero_static",
            "ravel", "split_with_sizes", "unravel_index", "unsafe_chunk", "unsafe_split",
            "unsafe_split_with_sizes", "vsplit",
        ],
        INPLACE_META: [
            "resize_as_",
        ],
        CREATION: [
            "block_diag", "cartesian_prod", "combinations", "diagflat", "empty_permuted",
            "empty_strided", "fill", "frombuffer", "logspace", "scalar_tensor", "vander",
        ],
        QUERIES: [
            "get_device", "is_inference", "is_same_size", "is_signed", "is_storage", "typename",
        ],
        MODULE_LEVEL_METHODS: [
            "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
            "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
            "clamp_max_", "clamp_min_", "clip_", "clone", "cos_", "cosh_", "detach", "detach_",
            "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_",
            "index_put_", "log10_", "log1p_", "log2_", "log_", "nan_to_num_", "neg_", "negative_",
            "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_",
            "square_", "tanh_", "trunc_", "zero_",
        ],
        "not yet: CPU thread-count controls (set_num_threads, get_num_interop_threads, ...)": [
            "get_num_interop_threads", "get_num_threads", "init_num_threads",
            "set_num_interop_threads", "set_num_threads",
        ],
        (
            "not yet: global switches (deterministic algorithms, float32 matmul precision, flush "
            "denormal, warn always)"
        ): [
            "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
            "get_float32_matmul_precision", "is_deterministic_algorithms_warn_only_enabled",
            "is_warn_always_enabled", "set_deterministic_debug_mode",
            "set_float32_matmul_precision", "set_flush_denormal", "set_warn_always",
            "use_deterministic_algorithms",
        ],
        "not yet: autograd anomaly detection and the inference-mode query": [
            "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_inference_mode_enabled",
            "set_anomaly_enabled",
        ],
        (
            "sub-byte and bit dtypes (int1-int7, uint1-uint7, bits*): placeholders with almost no "
            "kernels in PyTorch"
        ): [
            "bit", "bits16", "bits1x8", "bits2x4", "bits4x2", "bits8", "int1", "int2", "int3",
            "int4", "int5", "int6", "int7", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6",
            "uint7",
        ],
        "not yet: float8 and float4 dtypes": [
            "float4_e2m1fn_x2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
            "float8_e5m2fnuz", "float8_e8m0fnu",
        ],
        "not yet: the uint16, uint32 and uint64 dtypes (PyTorch gives them few kernels)": [
            "uint16", "uint32", "uint64",
        ],
        "not yet: the constants torch.e, torch.pi, torch.inf, torch.nan and torch.newaxis": [
            "e", "inf", "nan", "newaxis", "pi",
        ],
        (
            "not yet: device-generic Stream, Event, errors and get_device_module (genesis.cuda has "
            "Stream, Event and OutOfMemoryError)"
        ): [
            "AcceleratorError", "Event", "OutOfMemoryError", "Stream", "get_device_module",
        ],
        "not yet: to_dlpack (genesis.from_dlpack and Tensor.__dlpack__ exist)": [
            "to_dlpack",
        ],
        (
            "not yet: random extras (binomial sampling; thread_safe_generator for DataLoader "
            "workers)"
        ): [
            "binomial", "thread_safe_generator",
        ],
        "not yet: vmap (torch.func's vectorizing map)": [
            "vmap",
        ],
    },
    "torch.Tensor": {
        COMPLEX: [
            "__complex__", "cdouble", "cfloat", "chalf", "conj_physical", "conj_physical_", "imag",
            "is_conj", "is_neg", "resolve_conj", "resolve_neg",
        ],
        COMPLEX_ON_REAL: [
            "H", "adjoint", "angle", "conj", "is_complex", "isreal", "mH", "real",
        ],
        SPARSE: [
            "ccol_indices", "coalesce", "col_indices", "crow_indices", "dense_dim", "indices",
            "is_coalesced", "is_sparse", "is_sparse_csr", "resize_as_sparse_", "row_indices",
            "smm", "sparse_dim", "sparse_mask", "sparse_resize_", "sparse_resize_and_clear_",
            "sspaddmm", "to_dense", "to_sparse", "to_sparse_bsc", "to_sparse_bsr", "to_sparse_coo",
            "to_sparse_csc", "to_sparse_csr", "values",
        ],
        NESTED: [
            "is_nested", "to_padded_tensor",
        ],
        QUANT: [
            "dequantize", "int_repr", "is_quantized", "q_per_channel_axis", "q_per_channel_scales",
            "q_per_channel_zero_points", "q_scale", "q_zero_point", "qscheme",
        ],
        BACKENDS: [
            "ipu", "is_ipu", "is_maia", "is_mkldnn", "is_mps", "is_mtia", "is_vulkan", "is_xla",
            "is_xpu", "mtia", "to_mkldnn", "xpu",
        ],
        "not yet: the meta device (tensors with a shape and no data)": [
            "is_meta",
        ],
        LAYOUTS: [
            "layout",
        ],
        LEGACY_TYPES: [
            "new", "storage", "storage_type",
        ],
        DEPRECATED: [
            "cholesky", "ger", "lu", "lu_solve", "qr", "resize", "resize_as", "svd",
            "triangular_solve",
        ],
        REMOVED: [
            "eig", "lstsq", "reinforce", "solve", "symeig", "volatile",
        ],
        NN_FUNCTIONAL: [
            "hardshrink", "prelu",
        ],
        "not yet: genesis.nn.Module (Tensor.module_load is the hook of its load_state_dict)": [
            "module_load",
        ],
        FFT: [
            "istft", "stft",
        ],
        DECOMP: [
            "cholesky_inverse", "cholesky_solve", "geqrf", "orgqr", "ormqr",
        ],
        LINALG_ALIASES: [
            "det", "inverse", "slogdet",
        ],
        MATRIX_FUNCS: [
            "addr", "addr_", "logdet", "matrix_exp", "matrix_power", "pinverse", "trace",
        ],
        COPY_FORMS: [
            "narrow_copy",
        ],
        SCATTER_FORMS: [
            "as_strided_scatter", "diagonal_scatter", "select_scatter", "slice_inverse",
            "slice_scatter",
        ],
        ELEMENTWISE: [
            "deg2rad", "deg2rad_", "float_power", "float_power_", "fmax", "fmin", "frexp", "gcd",
            "gcd_", "lcm", "lcm_", "ldexp", "ldexp_", "logaddexp", "logaddexp2", "logit", "logit_",
            "nextafter", "nextafter_", "rad2deg", "rad2deg_", "signbit", "sinc", "sinc_", "tan",
            "tan_", "xlogy", "xlogy_",
        ],
        SPECIAL_FUNCS: [
            "i0", "i0_", "igamma", "igamma_", "igammac", "igammac_", "mvlgamma", "mvlgamma_",
        ],
        ALIASES: [
            "ndimension", "nelement", "positive",
        ],
        INPLACE_COMPARE: [
            "eq_", "ge_", "greater_", "greater_equal_", "gt_", "le_", "less_", "less_equal_",
            "lt_", "ne_", "not_equal_",
        ],
        INPLACE_META: [
            "as_strided_", "is_set_to", "resize_as_", "set_", "squeeze_", "swapaxes_", "swapdims_",
            "t_", "transpose_", "unsqueeze_",
        ],
        STATS: [
            "corrcoef", "cov", "dist", "renorm", "renorm_",
        ],
        "not yet: hash_tensor (one hash of all elements)": [
            "hash_tensor",
        ],
        SHAPE: [
            "as_strided", "dsplit", "hsplit", "nonzero_static", "ravel", "split_with_sizes",
            "sum_to_size", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "vsplit",
        ],
        CREATION: [
            "diagflat", "fill_diagonal_", "new_empty_strided",
        ],
        QUERIES: [
            "const_data_ptr", "dim_order", "get_device", "is_inference", "is_same_size",
            "is_signed",
        ],
        UNDOCUMENTED_ATEN: [
            "is_distributed",
        ],
        "not yet: apply_, map_ and map2_ (a Python callable per element, CPU only)": [
            "apply_", "map2_", "map_",
        ],
        "not yet: autograd extras (output_nr, grad_dtype)": [
            "grad_dtype", "output_nr",
        ],
        "not yet: tensor subclassing (as_subclass)": [
            "as_subclass",
        ],
        "first-class dimensions (functorch.dim): Tensor.index binds positions to Dim objects": [
            "index",
        ],
        (
            "Tensor.name, the debug name TorchScript's tracer gives a tensor (None otherwise): "
            "genesis has no TorchScript"
        ): [
            "name",
        ],
        (
            "NumPy's older interop hooks (__array_wrap__, __array_priority__): genesis implements "
            "__array_ufunc__ instead"
        ): [
            "__array_priority__", "__array_wrap__",
        ],
        (
            "not yet: __cuda_array_interface__ (CuPy and Numba read CUDA tensors through it; DLPack"
            " works today)"
        ): [
            "__cuda_array_interface__",
        ],
        (
            "__delitem__: PyTorch's only raises (del t[i] is an error there too); Python lists it "
            "beside __setitem__, which shares its C slot"
        ): [
            "__delitem__",
        ],
        (
            "not yet: __reversed__ (reversed(t) is t.flip(0) in PyTorch; in genesis reversed() "
            "yields the rows through __len__ and __getitem__)"
        ): [
            "__reversed__",
        ],
        "not yet: pickling tensors (__setstate__; genesis.save and genesis.load work)": [
            "__setstate__",
        ],
    },
    "torch.linalg": {
        (
            "not yet: the *_ex forms, which return an info tensor instead of raising on singular or"
            " non-positive-definite input"
        ): [
            "cholesky_ex", "inv_ex", "ldl_factor_ex", "lu_factor_ex", "solve_ex",
        ],
        "not yet: LU and LDL decompositions and their solves": [
            "ldl_factor", "ldl_solve", "lu", "lu_factor", "lu_solve",
        ],
        COMPLEX: [
            "eig", "eigvals",
        ],
        "not yet: least squares, pseudo-inverse, rank and condition number": [
            "cond", "lstsq", "matrix_rank", "pinv",
        ],
        "not yet: triangular solves and Householder products": [
            "householder_product", "solve_triangular",
        ],
        "not yet: matrix functions (matrix_exp, matrix_power)": [
            "matrix_exp", "matrix_power",
        ],
        "not yet: tensorinv and tensorsolve (inverses and solves over several dims)": [
            "tensorinv", "tensorsolve",
        ],
        (
            "not yet: linalg's names for ops genesis has at top level (linalg.matmul = matmul, "
            "linalg.diagonal = diagonal)"
        ): [
            "diagonal", "matmul",
        ],
        "not yet: vander, vecdot and multi_dot": [
            "multi_dot", "vander", "vecdot",
        ],
    },
    "torch.special": {
        "not yet: Bessel, Airy and modified Bessel functions": [
            "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "i0", "i0e", "i1",
            "i1e", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
            "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "spherical_bessel_j0",
        ],
        "not yet: orthogonal polynomials (Chebyshev, Hermite, Laguerre, Legendre)": [
            "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
            "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
            "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
            "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
            "shifted_chebyshev_polynomial_w",
        ],
        "not yet: gamma, zeta and the tails of erfc and the normal distribution (each needs an "
        "accurate kernel of its own)": [
            "erfcx", "gammainc", "gammaincc", "log_ndtr", "ndtri", "zeta",
        ],
    },
    "torch.nn": {
        "legacy layers: Container (PyTorch's pre-Module container, deprecated there) and "
        "CrossMapLRN2d (a Lua-torch port; LocalResponseNorm is the layer)": [
            "Container", "CrossMapLRN2d",
        ],
    },
    "torch.nn.functional": {
        "not yet: the grouped and scaled low-precision matrix products (FP8/MX recipes: "
        "grouped_mm, scaled_mm, scaled_grouped_mm and their ScalingType/SwizzleType enums)": [
            "ScalingType", "SwizzleType", "grouped_mm", "scaled_grouped_mm", "scaled_mm",
        ],
    },
    "torch.nn.init": {},
    "torch.nn.utils": {
        LAYOUTS: ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"],
    },
    "torch.optim": {
        "SparseAdam steps sparse gradients, and genesis has no sparse tensors (nn.Embedding's "
        "sparse=True raises)": [
            "SparseAdam",
        ],
        "a helper of torch's differentiable optimizers, which genesis does not have": [
            "swap_in_optimizer_params_and_state",
        ],
    },
    "torch.optim.lr_scheduler": {},
    "torch.utils.data": {
        "DataPipes and their decorators (deprecated in PyTorch, moved out of it; genesis's "
        "loader has datasets and samplers)": [
            "DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
            "functional_datapipe", "guaranteed_datapipes_determinism", "non_deterministic",
            "runtime_validation", "runtime_validation_disabled",
        ],
        "a private enum torch lists in __all__ (whether a loader fetches by key or by "
        "iteration)": ["_DatasetKind"],
    },
}

# Names that torch 2.11 (the GPU machine's) has and torch 2.13 does not: allowed as ALLOWED's are;
# on torch 2.13 the tests check that torch indeed lacks them.
OLDER_TORCH = {
    "torch": {
        "named tensors (deprecated in PyTorch; torch 2.13 no longer has them)": [
            "align_tensors",
        ],
        "PyTorch's vitals, internal telemetry switches (torch 2.13 no longer has them)": [
            "read_vitals", "set_vital", "vitals_enabled",
        ],
    },
    "torch.Tensor": {
        "named tensors (deprecated in PyTorch; torch 2.13 no longer has them)": [
            "align_as", "align_to", "has_names", "names", "refine_names", "rename", "rename_",
        ],
    },
}
# fmt: on
