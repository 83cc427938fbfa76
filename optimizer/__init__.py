"""gpumix: plans the cheapest GPU fleet for AI workloads from an Excel workbook."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gpumix")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
