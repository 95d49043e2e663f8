import os

# Never let torch autoload a device backend (torch_npu without CANN breaks `import torch`, docs/references.md#torch-npu).
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
