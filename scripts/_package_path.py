"""Which ascend_quant_ops the scripts import: a developer build in this checkout (scripts/dev_build.sh puts
_native next to the sources in python/ascend_quant_ops/) when there is one, otherwise the installed package.
A checkout without a developer build must not shadow the installed package: its sources lack _native."""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SOURCES = ROOT / "python"

if any((_SOURCES / "ascend_quant_ops").glob("_native*")) and str(_SOURCES) not in sys.path:
    sys.path.insert(0, str(_SOURCES))
# torch_npu without CANN breaks `import torch` through device-backend autoloading (docs/references.md#torch-npu)
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
