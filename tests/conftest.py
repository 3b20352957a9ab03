import sys
from pathlib import Path

# tests/util.py is importable as ``util`` from every test module
sys.path.insert(0, str(Path(__file__).parent))
