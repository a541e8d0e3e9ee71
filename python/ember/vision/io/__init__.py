"""ember.vision.io: image files <-> uint8 (C, H, W) tensors (torchvision.io's image functions)."""
from .image import (ImageReadMode, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
                    read_file, read_image, write_file, write_jpeg, write_png)

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg",
           "encode_png", "read_file", "read_image", "write_file", "write_jpeg", "write_png"]
