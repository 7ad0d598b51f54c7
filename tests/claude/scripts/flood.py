"""Prints SIZE bytes to stdout and SIZE/4 to stderr, interleaved, without reading stdin."""

import sys

size = int(sys.argv[1])
line = b"x" * 1023 + b"\n"
for index in range(size // len(line)):
    sys.stdout.buffer.write(line)
    if index % 4 == 0:
        sys.stderr.buffer.write(line)
sys.stdout.buffer.write(b"y" * (size % len(line)))
