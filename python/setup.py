# SPDX-License-Identifier: Apache-2.0
"""Builds perfmonpy's compiled module, _perfmonpy, with the project's CMake build (the module and
the library under it, nothing else) for the interpreter running this, and puts it in the package.
The metadata is the one CMake's install writes (the version from CMakeLists.txt, the rest from
METADATA.in and entry_points.txt), so that the two installs cannot differ."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent  # the project: python/ is one of its directories


def project_version():
    found = re.search(r"project\(perfmon VERSION ([0-9.]+)", (SOURCE / "CMakeLists.txt").read_text())
    if not found:
        sys.exit("perfmonpy: no version in CMakeLists.txt's project(); build from a perfmon source tree")
    return found.group(1)


def metadata_field(name):
    """All values of a field of METADATA.in (an email-style header file)."""
    return [line.split(":", 1)[1].strip() for line in (HERE / "METADATA.in").read_text().splitlines()
            if line.startswith(name + ":")]


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None or shutil.which("ninja") is None:
            sys.exit("perfmonpy: building it needs cmake and ninja; run scripts/install-deps first")
        build = Path(self.build_temp).resolve() / "cmake"
        configure = ["cmake", "-S", str(SOURCE), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                     f"-DPython3_EXECUTABLE={sys.executable}", "-DPERFMON_BUILD_TESTS=OFF",
                     "-DPERFMON_BUILD_BENCHMARKS=OFF"]
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "_perfmonpy"], check=True)
        built = sorted((build / "python" / "perfmonpy").glob("_perfmonpy*.so"))
        if not built:
            sys.exit("perfmonpy: CMake did not build _perfmonpy; its configure step above says what is missing "
                     "(python3-dev, pybind11-dev, python3-numpy: scripts/install-deps installs them)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(version=project_version(), description=metadata_field("Summary")[0],
      install_requires=metadata_field("Requires-Dist"), entry_points=(HERE / "entry_points.txt").read_text(),
      ext_modules=[Extension("perfmonpy._perfmonpy", sources=[])], cmdclass={"build_ext": BuildWithCMake})
