import sys
from pathlib import Path

# tests/e2e/browser_kit.py is importable as ``browser_kit`` from the browser tests
sys.path.insert(0, str(Path(__file__).parent))
