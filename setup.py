"""Builds the perflint wheel by driving CMake (see pyproject.toml).

setuptools + wheel (Debian's python3-setuptools / python3-wheel) rather than scikit-build-core: they
are what an offline Debian machine has, and `pip wheel --no-build-isolation .` needs its build
backend already installed. The wheel is not a Python package: its data files install perflint as
<venv>/bin/perflint with the probe shim at <venv>/share/perflint/shim, the layout `cmake --install`
gives, so perflint finds the shim relative to its own executable.

Environment:
  PERFLINT_CMAKE_BUILD_DIR   build (or reuse) perflint in this CMake build directory
  PERFLINT_CMAKE_ARGS        more CMake configure arguments (e.g. -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF)
  PERFLINT_PREBUILT_DIR      package the perflint already built in this CMake build directory, without
                             configuring or compiling (`cmake --install` only): for CI that reuses one
                             build across the wheel and pre-commit tests
  CMAKE_BUILD_PARALLEL_LEVEL, CMAKE_CXX_COMPILER_LAUNCHER, ...   as CMake reads them
"""
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from setuptools import Command, setup  # first: setuptools provides distutils
from setuptools.command.build import build
from distutils.command.install_data import install_data
from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent
TS_SOURCES = ROOT / "third_party" / "node_modules" / "tree-sitter-python" / "src" / "parser.c"


def run(cmd, **kw):
    print("+ " + " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


class build_cmake(Command):
    """Configures, builds and installs perflint (no tests, no LibTorch) into a staging prefix."""

    description = "build perflint with CMake"
    user_options = []

    def initialize_options(self):
        self.build_temp = None

    def finalize_options(self):
        self.set_undefined_options("build", ("build_temp", "build_temp"))

    def run(self):
        stage = Path(self.build_temp).resolve() / "stage"
        shutil.rmtree(stage, ignore_errors=True)
        prebuilt = os.environ.get("PERFLINT_PREBUILT_DIR")
        if prebuilt:
            run(["cmake", "--install", Path(prebuilt).resolve(), "--prefix", stage, "--strip", "--component", "perflint"])
        else:
            self.build_with_cmake(stage)
        files = {}
        for path in sorted(stage.rglob("*")):
            if path.is_file():
                files.setdefault(str(path.parent.relative_to(stage)), []).append(str(path))
        self.distribution.data_files = sorted(files.items())

    def build_with_cmake(self, stage):
        if not TS_SOURCES.exists():
            # A git checkout (pre-commit installs from one): fetch the pinned sources as
            # scripts/setup.sh does. The sdist carries them and needs no npm.
            if not shutil.which("npm"):
                raise SystemExit(
                    "perflint: the tree-sitter C sources are missing (third_party/node_modules) and npm "
                    "is not installed: install npm, or build from the sdist, which carries them")
            run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=ROOT / "third_party")
        bdir = Path(os.environ.get("PERFLINT_CMAKE_BUILD_DIR") or Path(self.build_temp) / "cmake").resolve()
        if not (bdir / "CMakeCache.txt").exists():
            gen = ["-G", "Ninja"] if shutil.which("ninja") else []
            extra = shlex.split(os.environ.get("PERFLINT_CMAKE_ARGS", ""))
            run(["cmake", "-S", ROOT, "-B", bdir, *gen, "-DCMAKE_BUILD_TYPE=Release",
                 "-DPERFLINT_BUILD_TESTS=OFF", "-DPERFLINT_STATIC_RUNTIME=ON", *extra])
        # The user build: perflint, the shim and, where CUDA is, the CUPTI library.
        run(["cmake", "--build", bdir, "--parallel"])
        run(["cmake", "--install", bdir, "--prefix", stage, "--strip", "--component", "perflint"])


class build_with_cmake(build):
    sub_commands = [("build_cmake", None)] + build.sub_commands


class install_data_from_cmake(install_data):
    def finalize_options(self):
        super().finalize_options()
        self.data_files = self.distribution.data_files

    def run(self):
        self.data_files = self.distribution.data_files
        super().run()


class bdist_wheel_native(bdist_wheel):
    """A platform wheel (it carries a native binary) for any Python 3."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(cmdclass={"build": build_with_cmake, "build_cmake": build_cmake,
                "install_data": install_data_from_cmake, "bdist_wheel": bdist_wheel_native})
