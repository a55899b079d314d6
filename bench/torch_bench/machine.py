"""What the benchmarks say about the machine they ran on, and where they pin
themselves: the CPU model and the flags that decide normrt's and the peers'
kernels, the load average, and the CPUs each thread count runs on."""
import os
import platform
import time

# The /proc/cpuinfo flags the runtimes choose kernels by (AVX-512 with BF16 and
# VNNI for bf16 / int8 dot products, AMX tiles where present).
KERNEL_FLAGS = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_vnni",
                "avx_vnni", "amx_tile", "amx_bf16", "amx_int8"]


def _cpuinfo_field(name):
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":", 1)[0].strip() == name:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_name():
    """The model name with the family/model numbers (a VM may show only
    "AMD EPYC"; the family tells the generation: 25 is Zen 3/4, 26 Zen 5)."""
    name = _cpuinfo_field("model name") or platform.processor() or "unknown CPU"
    family, model = _cpuinfo_field("cpu family"), _cpuinfo_field("model")
    return name if family is None else f"{name} (family {family}, model {model})"


def cpu_flags():
    """{flag: present} for KERNEL_FLAGS ({} when /proc/cpuinfo is unreadable)."""
    flags = _cpuinfo_field("flags")
    if flags is None:
        return {}
    present = set(flags.split())
    return {flag: flag in present for flag in KERNEL_FLAGS}


def cpu_summary():
    flags = cpu_flags()
    have = [f for f, on in flags.items() if on]
    lacks = [f for f, on in flags.items() if not on]
    return f"{cpu_name()}; flags {' '.join(have) or '?'}" + \
        (f"; no {' '.join(lacks)}" if lacks else "")


def load_average():
    return "%.2f %.2f %.2f" % os.getloadavg()


class Pinning:
    """The CPUs the process may use when it starts (taskset's mask) and the
    ones each thread count is pinned to: t threads run on t CPUs of the
    starting mask, taken from its end (so `taskset -c 0,1` puts the
    one-thread runs on CPU 1, as `taskset -c 1` would).

    pin(t) restricts the calling thread; threads a runtime creates afterwards
    (ONNX Runtime's and CTranslate2's pools, normrt's session pool, PyTorch's
    OpenMP workers) inherit the mask, so build each thread count's sessions
    after pinning for it."""

    def __init__(self):
        self.start = sorted(os.sched_getaffinity(0))

    def cpus_for(self, threads):
        """The CPUs for `threads` threads, or None if the mask has fewer."""
        if threads > len(self.start):
            return None
        return self.start[len(self.start) - threads:]

    def pin(self, threads):
        """Pins the calling thread to cpus_for(threads); returns them, or None
        (and leaves the mask alone) if the starting mask is too small."""
        cpus = self.cpus_for(threads)
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
        return cpus

    def warnings(self, thread_counts):
        notes = []
        if len(self.start) > max(thread_counts):
            notes.append(f"affinity {self.start} is wider than the {max(thread_counts)} "
                         "thread(s) asked for: the script pins itself per thread count, but "
                         "other processes may share those CPUs (run under `taskset -c 1`, or "
                         "`taskset -c 0,1` with --threads 1,2)")
        for t in thread_counts:
            if self.cpus_for(t) is None:
                notes.append(f"{t} threads need {t} CPUs but the affinity mask is "
                             f"{self.start}: those runs are skipped (run under "
                             f"`taskset -c 0-{t - 1}`)")
        return notes


class ForeignCpu:
    """How many CPUs other processes kept busy while a measurement ran:
    (all CPUs' busy time from /proc/stat − this process's CPU time) ÷ wall
    time. The load average cannot tell this process's own threads from the
    others'; this can. None where /proc/stat is unreadable."""

    def __init__(self):
        self.start = self._snapshot()

    @staticmethod
    def _snapshot():
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        # user nice system idle iowait irq softirq steal ...: busy leaves out idle and iowait
        busy = sum(fields[:3]) + sum(fields[5:8])
        own = os.times()
        return time.monotonic(), busy / os.sysconf("SC_CLK_TCK"), own.user + own.system

    def busy_cpus(self):
        end = self._snapshot()
        if self.start is None or end is None or end[0] <= self.start[0]:
            return None
        foreign = (end[1] - self.start[1]) - (end[2] - self.start[2])
        return max(0.0, foreign / (end[0] - self.start[0]))
