"""A generic hook: reads the event on stdin, then prints and exits as told.

emit.py [--stdout TEXT] [--stderr TEXT] [--exit N] [--echo-input] [--sleep S]
"""

import sys
import time

options = {"--stdout": "", "--stderr": "", "--exit": "0", "--sleep": "0"}
words = sys.argv[1:]
echo_input = "--echo-input" in words  # print stdin back, byte for byte
if echo_input:
    words.remove("--echo-input")
options.update(zip(words[::2], words[1::2], strict=True))

data = sys.stdin.buffer.read()
if echo_input:
    sys.stdout.buffer.write(data)
sys.stdout.write(options["--stdout"])
sys.stderr.write(options["--stderr"])
sys.stdout.flush()
time.sleep(float(options["--sleep"]))
sys.exit(int(options["--exit"]))
