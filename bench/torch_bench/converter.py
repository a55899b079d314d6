"""The built normrt pieces the benchmark uses: normrt-convert (run as a
subprocess, exactly as a user would) and libnormrt.so (loaded with ctypes).
Missing ones are built in the given build tree:
`cmake --build <build-dir> --target normrt-convert normrt`."""
import os
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class BuildTree:
    def __init__(self, build_dir):
        self.dir = os.path.abspath(build_dir if os.path.isabs(build_dir)
                                   else os.path.join(REPO, build_dir))
        self.convert = os.path.join(self.dir, "tools", "convert", "normrt-convert")
        self.library = os.path.join(self.dir, "runtime", "libnormrt.so")

    def ensure_built(self):
        if os.path.exists(self.convert) and os.path.exists(self.library):
            return
        if not os.path.exists(os.path.join(self.dir, "build.ninja")) and not os.path.exists(
                os.path.join(self.dir, "Makefile")):
            raise SystemExit(f"{self.dir} is not a configured build tree; configure it with\n"
                             f"  cmake -S {REPO} -B {self.dir} -G Ninja -DCMAKE_BUILD_TYPE=Release")
        subprocess.run(["cmake", "--build", self.dir, "--target", "normrt-convert", "normrt"],
                       check=True)


class ConvertError(RuntimeError):
    pass


def convert(tree, config, weights, output, dtype="f32", extra=()):
    """Runs normrt-convert; raises ConvertError with its message on failure."""
    command = [tree.convert, "--config", config, "--weights", weights, "--output", output,
               "--dtype", dtype, "--quiet", *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise ConvertError(message[0] if message else f"exit code {done.returncode}")
    return output
