"""The spec examples, as data: used by the CLI demo and by the conformance tests.

SEED_004: the ATB DynamicQuant example (its input is float16, the "(float8)" label is a typo;
docs/references.md#atb-dynamicquant).
ONNX_2D_UINT8: the QLinearMatMul example of the ONNX operator documentation (2-D, uint8, per-tensor).
w8a8_example(): the W8A8 demo's float16 activations [B, S, K] and float32 Linear weight [N, K] (seeded data).
"""
import numpy as np

SEED_004_X = np.array(
    [[[5.273, 6.836, 11.99, 6.01], [9.42, 15.3, -4.484, -3.783]],
     [[-2.002, 0.746, 3.756, 15.11], [-3.05, 12.1, 5.81, -1.298]]], dtype=np.float16)
SEED_004_Y = np.array(
    [[[56, 72, 127, 64], [78, 127, -37, -31]],
     [[-17, 6, 32, 127], [-32, 127, 61, -14]]], dtype=np.int8)
SEED_004_SCALE = np.array([[0.09442668, 0.12044784], [0.11897146, 0.0952879]], dtype=np.float32)

ONNX_2D_UINT8 = dict(
    a=np.array([[208, 236, 0, 238], [3, 214, 255, 29]], dtype=np.uint8),
    a_scale=np.array(0.0066, dtype=np.float32),
    a_zero_point=np.array(113, dtype=np.uint8),
    b=np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], dtype=np.uint8),
    b_scale=np.array(0.00705, dtype=np.float32),
    b_zero_point=np.array(114, dtype=np.uint8),
    y_scale=np.array(0.0107, dtype=np.float32),
    y_zero_point=np.array(118, dtype=np.uint8),
)
ONNX_2D_UINT8_Y = np.array([[168, 115, 255], [1, 66, 151]], dtype=np.uint8)

#: the W8A8 demo passes when quant_matmul's result is within this relative L2 error of the float product (the
#: oneDNN quantization tutorial's threshold; docs/references.md#onednn-matmul-quantization)
W8A8_THRESHOLD = 3e-2


def w8a8_example():
    """(x, weight): float16 activations [2, 4, 64] and a float32 Linear weight [16, 64], from a fixed seed."""
    rng = np.random.default_rng(2024)
    x = rng.standard_normal((2, 4, 64)).astype(np.float16)
    weight = (rng.standard_normal((16, 64)) * 0.05).astype(np.float32)
    return x, weight
