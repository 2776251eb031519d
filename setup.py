"""Build of the optional C kernel, marjolet._kernel (see docs/kernel.md).

Every ``src/marjolet/_kernel/*.c`` file is compiled (C11, -O3). The extension
is optional: without a C compiler ``pip install`` still succeeds and
marjolet runs in pure Python. ``MARJOLET_KERNEL_CFLAGS`` replaces the
optimisation flags (the sanitizer build of ``make kernel-asan`` uses it).
"""

from __future__ import annotations

import os
import shlex
from glob import glob

from setuptools import Extension, setup

_flags = os.environ.get("MARJOLET_KERNEL_CFLAGS", "-O3")

kernel = Extension(
    "marjolet._kernel",
    sources=sorted(glob("src/marjolet/_kernel/*.c")),
    depends=sorted(glob("src/marjolet/_kernel/*.h")),
    extra_compile_args=["-std=c11", *shlex.split(_flags)],
    extra_link_args=shlex.split(os.environ.get("MARJOLET_KERNEL_LDFLAGS", "")),
    libraries=["m"],
    optional=True,
)

setup(ext_modules=[kernel])
