"""The C++ library installed with the package (issue 19): libember shared by _C, headers, the
CMake package and ember.pc, found through ember.utils.cmake_prefix_path (docs/cpp.md)."""
import os
import subprocess
import sys

import ember
import ember.utils


def _prefix():
    # cmake_prefix_path is <prefix>/share/cmake
    return os.path.dirname(os.path.dirname(ember.utils.cmake_prefix_path.rstrip(os.sep)))


def test_cmake_prefix_path_holds_the_cmake_package():
    cfg = os.path.join(ember.utils.cmake_prefix_path, "ember")
    assert sorted(f for f in os.listdir(cfg) if f.startswith("emberConfig")) == [
        "emberConfig.cmake", "emberConfigVersion.cmake"]
    targets = open(os.path.join(cfg, "emberTargets.cmake")).read()
    assert "ember::ember" in targets and "ember::openblas" in targets and "gloo" in targets
    assert "hwy" not in targets  # Highway stays private to libember
    version = open(os.path.join(cfg, "emberConfigVersion.cmake")).read()
    assert f'set(PACKAGE_VERSION "{ember.version.ember_version}")' in version


def test_prefix_holds_headers_library_and_pkgconfig():
    prefix = _prefix()
    assert os.path.isfile(os.path.join(prefix, "include", "ember", "ember.h"))
    lib = os.path.join(prefix, "lib")
    major, minor, _ = ember.version.ember_version.split(".")
    soname = f"libember.so.{major}.{minor}"
    assert os.path.isfile(os.path.join(lib, soname))
    # The wheel holds the SONAME file alone (no symlinks in wheels); a cmake --install has the
    # development symlink libember.so too.
    assert sorted(f for f in os.listdir(lib) if f.startswith("libember")) in (
        [soname], ["libember.so", soname, soname + ".0"])
    pc = open(os.path.join(lib, "pkgconfig", "ember.pc")).read()
    assert ("-lember" in pc or f"-l:{soname}" in pc) and "${pcfiledir}" in pc


def test_python_module_uses_the_shared_library_once():
    # _C links libember.so (one allocator, thread pool and op registry per process).
    maps = open("/proc/self/maps").read()
    libs = {line.split()[-1] for line in maps.splitlines() if "libember.so" in line}
    assert len(libs) == 1, libs
    assert os.path.realpath(libs.pop()).startswith(os.path.realpath(os.path.join(_prefix(), "lib")))


def test_main_prints_cmake_prefix_path():
    out = subprocess.run([sys.executable, "-m", "ember", "--cmake-prefix-path"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == ember.utils.cmake_prefix_path
