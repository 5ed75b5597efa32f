#!/usr/bin/env python3
"""Natural test images for bench-ebcot (--images DIR), from scikit-image's
photographs: camera (512x512 grey) as is, and astronaut, coffee and
chelsea resampled to the larger sizes (grey 8-bit PGM; the 4096x2160
colour one as a 16-bit PPM with 12-bit values).  Resampling smooths the
photographs somewhat, which the benchmark notes say.

    python3 bench/j2k/ebcot_images.py DIR
"""
import sys

import numpy as np
from skimage import color, data, transform


def save(path, img, maxval):
    img = np.asarray(img)
    magic = b"P6" if img.ndim == 3 else b"P5"
    dtype = ">u2" if maxval > 255 else "u1"
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n%d\n" % (magic, img.shape[1], img.shape[0], maxval))
        f.write(img.astype(dtype).tobytes())


def grey(img, h, w):
    g = color.rgb2gray(img) if img.ndim == 3 else img / 255.0
    g = transform.resize(g, (h, w), order=3, anti_aliasing=True)
    return np.clip(np.rint(g * 255), 0, 255)


def main():
    out = sys.argv[1]
    save(f"{out}/natural-512x512.pgm", data.camera(), 255)
    save(f"{out}/natural-1280x720.pgm", grey(data.astronaut(), 720, 1280), 255)
    save(f"{out}/natural-1920x1080.pgm", grey(data.coffee(), 1080, 1920), 255)
    save(f"{out}/natural-4096x2160.pgm", grey(data.chelsea(), 2160, 4096), 255)
    rgb = transform.resize(data.astronaut() / 255.0, (2160, 4096, 3), order=3,
                           anti_aliasing=True)
    save(f"{out}/natural-4096x2160.ppm", np.clip(np.rint(rgb * 4095), 0, 4095), 4095)


if __name__ == "__main__":
    main()
