"""Proves hooks run in parallel: each marks its arrival, then waits until N have arrived.

barrier.py FOLDER N NAME   (exit 1 if the others never come)
"""

import sys
import time
from pathlib import Path

sys.stdin.read()
folder, count, name = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
(folder / name).touch()
deadline = time.monotonic() + 5
while len(list(folder.iterdir())) < count:
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.01)
print(name)
