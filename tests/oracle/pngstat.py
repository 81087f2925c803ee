#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pngstat.py FILE: "WIDTH COLOURS DARK" of an 8-bit RGB(A) PNG, decoded
# with zlib alone (no imaging library needed): its width, the distinct
# colours of every third pixel, and how many of those are dark (axis,
# text).  The oracle tests use it to tell a rendered picture or page from
# a blank one.
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(d):
    n, kind = struct.unpack('>I4s', d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), 'colour type %d depth %d' % (ctype, depth)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, dark = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 3):
        px = bytes(line[x:x + bpp])
        colours.add(px)
        if (bpp == 3 or px[3] > 128) and sum(px[:3]) < 200:
            dark += 1
    prev = line
print(w, len(colours), dark)
