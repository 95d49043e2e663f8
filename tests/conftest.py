import os

# Never let torch autoload a device backend (torch_npu without CANN breaks `import torch`, docs/references.md#torch-npu).
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")


def pytest_collection_modifyitems(config, items):
    """Long tests (marker `slow`) first: pytest-xdist hands its first tests out round robin, so they start at once
    on different workers instead of one of them ending the run alone. Order changes nothing else: no test
    depends on another."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the rest keep their order
