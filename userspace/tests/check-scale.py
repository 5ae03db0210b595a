#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-scale.py READER GENREC [N]: a synthetic binary recording of N
reads (default 10 million, 3.4 GB, made by genrec and piped, never on
disk) read by the table, and one of N/10 by each other view that prints
histograms and sums, and by those that keep a few reads: each must count
every read and stay within a memory bound that does not grow with reads
(64 MiB of peak resident memory; the reader before binary recordings
kept every read, about 980 bytes each: 9.8 GB for 10 million). The rate
is printed, for the log; it is not asserted (the machine's load is not
the reader's)."""
import resource
import subprocess
import sys
import time

reader, genrec = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
BOUND_KB = 64 * 1024
failed = 0


def run(view, n):
    """The view of a fresh recording of n reads: (stdout, peak KB, s)."""
    gen = subprocess.Popen([genrec, str(n)], stdout=subprocess.PIPE)
    t = time.monotonic()
    out = subprocess.run([reader, "--from", "/dev/stdin"] + view, stdin=gen.stdout,
                         capture_output=True, text=True, check=False)
    secs = time.monotonic() - t
    gen.stdout.close()
    gen.wait()
    # The largest of any child's so far (genrec's is small): a bound of this one's.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return out, peak, secs


def check(ok, what):
    global failed
    print(("ok - " if ok else "not ok - ") + what)
    failed += not ok


m = n // 10
for view, n, want in [([], n, "recording: %d reads, %d lost" % (n, n // 100000)),
                      (["-H"], m, "layer = syscall, %d reads" % m),
                      (["--files"], m, "(%d reads recorded)" % m),
                      (["-D"], m, "(%d reads recorded)" % m),
                      (["-j"], m, '"stream_lost": %d' % (m // 100000)),
                      (["-t"], m, "#"),
                      (["--slow"], m, "slow reads before these not kept"),
                      (["--svg", "/dev/null"], m, "slowest reads of 50 kept")]:
    out, peak, secs = run(view, n)
    name = " ".join(view) or "the table"
    check(out.returncode == 0 and want in out.stdout and not out.stderr,
          "scale: %s of %d reads: exit %d, says '%s'%s" %
          (name, n, out.returncode, want, (": " + out.stderr.strip()[:200]) if out.stderr else ""))
    check(peak < BOUND_KB, "scale: %s of %d reads in %d KB at most (bound %d KB); %.2f s, %.2f M reads/s"
          % (name, n, peak, BOUND_KB, secs, n / secs / 1e6))
print("check-scale: %d failed" % failed)
sys.exit(1 if failed else 0)
