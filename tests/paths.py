"""Where the project's files are, for tests in any folder (never the current directory)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_WORKBOOK = ROOT / "workbooks" / "example.xlsx"
