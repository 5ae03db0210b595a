# SPDX-License-Identifier: GPL-2.0
"""What the module's stream says of itself, for stream.sh's readers."""

STATS = "/sys/kernel/debug/iolayers/stats"


def accounted():
    """Records the stream delivered or said lost (stats), in all."""
    s = {}
    for line in open(STATS):
        t = line.split()
        if len(t) == 2:
            s[t[0]] = t[1]
    return int(s.get("stream_delivered", 0)) + int(s.get("stream_lost", 0))


class Lines:
    """The lines of stream/events as they come: the header's columns in
    col, then each whole line's fields; waited(t) how long the read of
    line t had been over when its line was taken at now_ns."""

    def __init__(self):
        self.buf, self.col = b"", None

    def feed(self, data):
        """The whole lines that data completes, as lists of fields."""
        self.buf += data
        lines = self.buf.split(b"\n")
        self.buf = lines.pop()
        out = []
        for line in lines:
            t = line.decode().split()
            if self.col is None:
                self.col = {n: i for i, n in enumerate(t)}
            else:
                out.append(t)
        return out

    def waited(self, t, now_ns):
        """ns from the end of read t (start_ns + syscall_ns) to now_ns."""
        return now_ns - int(t[self.col["start_ns"]]) - int(t[self.col["syscall_ns"]])
