"""What every part of Scripts/abuse shares: the repository's root and logging."""

import os
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(message):
    print(f"abuse: {message}", file=sys.stderr, flush=True)
