"""C++ extensions built from Python (ember.utils.cpp_extension, issue 19 item 2; docs/cpp.md).

The LLTM cell of PyTorch's C++ extension tutorial (examples/cpp_extension/lltm.cpp: torch-style
source, forward and backward in C++) built with load_inline must match the same cell composed of
ember ops (and torch's) and pass gradcheck in float64, through the tutorial's Python Function and
through its C++ torch::autograd::Function; the same file built ahead of time by a setup.py with
CppExtension + BuildExtension must import and run. A second extension holds a torch-style function
and an op with a hand-written ember::Node. Builds go to one temporary TORCH_EXTENSIONS_DIR."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch as ref

import ember
from ember.utils import cpp_extension

REPO = Path(__file__).resolve().parents[2]
LLTM_DIR = REPO / "examples" / "cpp_extension"
sys.path.insert(0, str(LLTM_DIR))
from lltm import composed, lltm_function  # noqa: E402  (the tutorial's Python side)
BATCH, FEATURES, STATE = 4, 6, 5


@pytest.fixture(scope="module")
def ext_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("extensions")
    old = os.environ.get("TORCH_EXTENSIONS_DIR")
    os.environ["TORCH_EXTENSIONS_DIR"] = str(d)
    yield d
    if old is None:
        del os.environ["TORCH_EXTENSIONS_DIR"]
    else:
        os.environ["TORCH_EXTENSIONS_DIR"] = old


@pytest.fixture(scope="module")
def lltm_cpp(ext_dir):
    return cpp_extension.load_inline("lltm_cpp", (LLTM_DIR / "lltm.cpp").read_text())


def cell_inputs(m, dtype, seed=0):
    g = ref.Generator().manual_seed(seed)
    shapes = [(BATCH, FEATURES), (3 * STATE, FEATURES + STATE), (3 * STATE,), (BATCH, STATE),
              (BATCH, STATE)]
    arrays = [ref.randn(s, generator=g, dtype=ref.float64).numpy() for s in shapes]
    return [m.tensor(a, dtype=getattr(m, dtype), requires_grad=True) for a in arrays]


def run(cell, m, inputs):
    new_h, new_cell = cell(*inputs)
    (new_h.sum() * 2 + (new_cell * new_cell).sum()).backward()
    return [new_h, new_cell] + [x.grad for x in inputs]


def close(a, b, tol):
    return (a.detach() - b.detach()).abs().max().item() <= tol


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-6), ("float32", 1e-5)])
@pytest.mark.parametrize("variant", ["python_function", "cpp_function"])
def test_lltm_matches_composed_cell(lltm_cpp, variant, dtype, tol):
    cell = lltm_function(ember, lltm_cpp) if variant == "python_function" else lltm_cpp.lltm
    got = run(cell, ember, cell_inputs(ember, dtype))
    composed_out = run(composed(ember), ember, cell_inputs(ember, dtype))
    oracle = run(composed(ref), ref, cell_inputs(ref, dtype))
    for g, c, o in zip(got, composed_out, oracle):
        assert tuple(g.shape) == tuple(c.shape)
        assert close(g, c, tol), (g, c)
        assert close(g, ember.tensor(o.detach().numpy()), tol)


def test_lltm_cpp_function_records_one_node(lltm_cpp):
    x = cell_inputs(ember, "float32")
    new_h, new_cell = lltm_cpp.lltm(*x)
    assert new_h.grad_fn.name() == "LLTMFunctionBackward"
    assert new_h.grad_fn is not None and new_cell.requires_grad
    with ember.no_grad():
        h, _ = lltm_cpp.lltm(*x)
    assert h.grad_fn is None and not h.requires_grad


@pytest.mark.parametrize("variant", ["python_function", "cpp_function"])
def test_lltm_gradcheck_float64(lltm_cpp, variant):
    cell = lltm_function(ember, lltm_cpp) if variant == "python_function" else lltm_cpp.lltm
    assert ember.autograd.gradcheck(lambda *a: tuple(cell(*a)), cell_inputs(ember, "float64"))


def test_load_inline_caches_by_content(ext_dir, lltm_cpp):
    built = sorted((ext_dir / "lltm_cpp").glob("lltm_cpp.*.so"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    again = cpp_extension.load_inline("lltm_cpp", (LLTM_DIR / "lltm.cpp").read_text())
    assert again is lltm_cpp and built[0].stat().st_mtime_ns == stamp


OPS = r"""
// A torch-style function: autograd flows through the ember ops it calls.
torch::Tensor scale_add(torch::Tensor x, torch::Tensor y, double a) { return x * a + y; }

// An op with its own backward, as an ember::Node subclass.
struct CubeBackward : ember::Node {
  explicit CubeBackward(ember::Tensor x) : x_(std::move(x)) {}
  ember::Grads apply(ember::Grads&& g) override {
    return {ember::mul(g[0], ember::mul(ember::mul(x_, x_), ember::Scalar(3.0)))};
  }
  std::string name() const override { return "CubeBackward"; }
  ember::Tensor x_;
};

ember::Tensor cube(const ember::Tensor& x) {
  ember::Tensor y;
  {
    ember::NoGradGuard no_grad;
    y = ember::mul(ember::mul(x, x), x);
  }
  if (ember::GradMode::is_enabled() && ember::autograd::requires_grad(x))
    ember::autograd::set_history(ember::IntrusivePtr<ember::Node>(new CubeBackward(x)), {x}, {y});
  return y;
}

torch::Tensor checked_sum(torch::Tensor x) {
  TORCH_CHECK(x.dim() == 1, "checked_sum: expected a 1-d tensor, got ", x.dim(), " dims");
  double total = 0;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "checked_sum", [&] {
    auto c = x.contiguous();
    const scalar_t* p = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < c.numel(); ++i) total += p[i];
  });
  return torch::full({}, total, torch::dtype(torch::kFloat64));
}
"""


@pytest.fixture(scope="module")
def ops(ext_dir):
    return cpp_extension.load_inline(
        "ops_ext", OPS, functions={"scale_add": "x * a + y", "cube": "x ** 3", "checked_sum": "sum"})


def test_torch_style_function_and_node_subclass(ops):
    x = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = ember.tensor([0.5, 0.5, 0.5], requires_grad=True)
    out = ops.scale_add(x, y, 2.0)
    assert out.tolist() == [2.5, -3.5, 6.5] and ops.scale_add.__doc__.endswith("x * a + y")
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and y.grad.tolist() == [1.0, 1.0, 1.0]
    z = ops.cube(x)
    assert z.grad_fn.name() == "CubeBackward" and z.tolist() == [1.0, -8.0, 27.0]
    x.grad = None
    z.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 27.0]
    assert ember.autograd.gradcheck(ops.cube, [ember.randn(4, dtype=ember.float64, requires_grad=True)])
    assert ops.checked_sum(ember.tensor([1.0, 2.0, 4.5])).item() == 7.5


def test_extension_errors_reach_python_as_ember_errors(ops):
    with pytest.raises(RuntimeError, match="checked_sum: expected a 1-d tensor, got 2 dims"):
        ops.checked_sum(ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="\"checked_sum\" not implemented for 'int64'"):
        ops.checked_sum(ember.tensor([1, 2]))
    with pytest.raises(TypeError):  # nanobind: no overload takes a str
        ops.cube("x")
    with pytest.raises(ValueError, match=r"add: shapes \(2,\) and \(3,\)"):  # an ember op's error
        ops.scale_add(ember.zeros(2), ember.zeros(3), 1.0)


def test_load_standalone_executable_from_two_files_rebuilds_on_header_change(tmp_path, ext_dir):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "factor.h").write_text("constexpr double kFactor = 2.0;\n")
    (tmp_path / "twice.cpp").write_text(
        "#include <ember/ember.h>\n#include \"factor.h\"\n"
        "double twice_sum() { return ember::sum(ember::mul(ember::ones({3}), ember::Scalar(kFactor)))"
        ".item().to_double(); }\n")
    (tmp_path / "main.cpp").write_text(  # (without ember's headers: quick to compile)
        "#include <cstdio>\ndouble twice_sum();\nint main() { std::printf(\"%g\\n\", twice_sum()); }\n")

    def build():
        exe = cpp_extension.load("standalone", [str(tmp_path / "main.cpp"), str(tmp_path / "twice.cpp")],
                                 extra_include_paths=[str(tmp_path / "include")], is_standalone=True)
        return exe, subprocess.run([exe], capture_output=True, text=True, check=True).stdout.strip()

    exe, out = build()
    assert out == "6" and build()[0] == exe  # unchanged: the cached file
    (tmp_path / "include" / "factor.h").write_text("constexpr double kFactor = 3.0;  // edited\n")
    exe2, out2 = build()
    assert out2 == "9" and exe2 != exe


def test_build_errors(ext_dir):
    with pytest.raises(RuntimeError, match="Error building extension 'broken'"):
        cpp_extension.load_inline("broken", "int f( { return 0; }", functions=["f"])
    with pytest.raises(ValueError, match="identifier"):
        cpp_extension.load_inline("not-a-name", "", functions=[])
    with pytest.raises(OSError, match="CPU only"):
        cpp_extension.load_inline("gpu", "", cuda_sources="__global__ void k() {}")
    with pytest.raises(FileNotFoundError):
        cpp_extension.load("missing", [str(ext_dir / "nope.cpp")])


def test_paths_point_at_the_installed_headers_and_library():
    inc = cpp_extension.include_paths()
    assert any((Path(p) / "ember" / "ember.h").is_file() for p in inc)
    assert any((Path(p) / "torch" / "extension.h").is_file() for p in inc)
    assert any((Path(p) / "nanobind" / "nanobind.h").is_file() for p in inc)
    (lib,) = cpp_extension.library_paths()
    assert any(f.startswith("libember.so.") for f in os.listdir(lib))
    with pytest.raises(ValueError, match="CPU only"):
        cpp_extension.include_paths("cuda")
    # What a setup.py looks at before choosing CUDAExtension: as torch's on a machine without CUDA.
    assert cpp_extension.CUDA_HOME is None and cpp_extension.ROCM_HOME is None
    assert cpp_extension.IS_HIP_EXTENSION is False and cpp_extension.IS_WINDOWS is False
    assert cpp_extension.get_default_build_root().endswith("ember_extensions")
    assert cpp_extension.get_cxx_compiler() == os.environ.get("CXX", "c++")
    if cpp_extension.is_ninja_available():
        cpp_extension.verify_ninja_availability()
    else:
        with pytest.raises(RuntimeError, match="Ninja"):
            cpp_extension.verify_ninja_availability()
    ext = cpp_extension.CppExtension("m", ["m.cpp"], include_dirs=["/x"], extra_link_args=["-lm"])
    assert ext.language == "c++" and ext.include_dirs[0] == "/x" and set(inc) <= set(ext.include_dirs)
    assert ext.library_dirs == [lib] and ext.extra_link_args[0] == "-lm"
    assert any(a.startswith("-l:libember.so.") for a in ext.extra_link_args)


def test_build_extension_options_without_compiling():
    from setuptools import Distribution
    ext = cpp_extension.CppExtension("pkg.m", ["m.cpp"], extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]})
    cls = cpp_extension.BuildExtension.with_options(no_python_abi_suffix=True)
    cmd = cls(Distribution({"ext_modules": [ext]}))
    cmd.ensure_finalized()
    assert cmd.no_python_abi_suffix and cmd.get_ext_filename("m") == "m.so"
    assert cpp_extension.BuildExtension(Distribution()).get_ext_filename("m").endswith(".so")
    with pytest.raises(OSError, match="CPU only.*nvcc"):  # refused before anything compiles
        cmd.build_extensions()


def test_build_extension_setup_py(tmp_path):
    """The tutorial's ahead-of-time build: setup.py with CppExtension + BuildExtension, run under
    the drop-in runner (torch.utils.cpp_extension is ember's), then imported after ember."""
    for f in ("lltm.cpp", "setup.py"):
        (tmp_path / f).write_text((LLTM_DIR / f).read_text())
    build = subprocess.run([sys.executable, "-m", "ember", "run", "setup.py", "build_ext", "--inplace"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    check = ("import ember, lltm_cpp\n"
             "x = [ember.randn(*s, dtype=ember.float64, requires_grad=True) for s in "
             "[(2, 3), (12, 7), (12,), (2, 4), (2, 4)]]\n"
             "h, c = lltm_cpp.lltm(*x)\n"
             "assert ember.autograd.gradcheck(lambda *a: tuple(lltm_cpp.lltm(*a)), x)\n"
             "print(tuple(h.shape), h.grad_fn.name())\n")
    run = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "(2, 4) LLTMFunctionBackward"


def test_drop_in_maps_torch_cpp_extension(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch.utils.cpp_extension as c, ember.utils.cpp_extension as e\n"
                      "assert c is e and c.load_inline is e.load_inline\n"
                      "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
                      "print(BuildExtension.__name__)\n")
    out = subprocess.run([sys.executable, "-m", "ember", "run", str(script)], capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stdout.strip() == "BuildExtension", out.stdout + out.stderr
