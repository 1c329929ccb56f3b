#!/usr/bin/env python3
"""Generate every art, font and sound asset under assets/.

    python3 scripts/gen-assets.py           # (re)write the generated files
    python3 scripts/gen-assets.py --check   # exit 1 if any file differs

Standard library only, and deterministic: all randomness comes from fixed
seeds fed to the small generator below (not `random`, whose algorithms are
Python's to change), so every run writes the same bytes. Floats only feed
values that end up rounded to 8-bit pixels or 16-bit samples, so last-bit
differences between maths libraries do not show. The hand-written files in
assets/ (README.md, LICENSE.md, CREDITS.md) are not touched.

Sizes follow the game: the 640x360 arena is drawn at 2x into a 1280x720
window, so sprites are drawn at twice their world size (player radius 6 ->
24x24 px, enemy radius 10 -> 40x40 px) and stay crisp. Ships and the charger
point UP; the game turns them.
"""

import io
import json
import math
import struct
import sys
import wave
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"


# --------------------------------------------------------------------------
# Determinism helpers


class Rng:
    """SplitMix64: tiny, well mixed, and fixed forever (unlike `random`)."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed & self.MASK

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def uniform(self, lo=0.0, hi=1.0):
        # 53 random bits -> a float in [0, 1), exactly like a double's mantissa.
        return lo + (hi - lo) * ((self.next_u64() >> 11) / float(1 << 53))

    def below(self, n):
        return self.next_u64() % n


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def lerp(a, b, t):
    return a + (b - a) * t


def smoothstep(e0, e1, x):
    t = clamp((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def mix(c1, c2, t):
    """Blend two RGB tuples (0..255)."""
    return tuple(lerp(a, b, t) for a, b in zip(c1, c2))


def scale(c, k):
    return tuple(v * k for v in c)


WHITE = (255, 255, 255)


# --------------------------------------------------------------------------
# PNG writing (zlib + struct)


def png_chunk(kind, data):
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(raw, width, height, bpp, filters=range(5)):
    """Pick the PNG row filter with the smallest sum of |signed bytes|.

    The usual libpng heuristic; it roughly halves the starfield's size
    compared with no filtering. `filters` limits the ones tried (a big
    image of flat colour loses little without Paeth, and is written in
    a fraction of the time).
    """
    stride = width * bpp
    out = bytearray()
    prev = bytes(stride)
    for y in range(height):
        row = raw[y * stride : (y + 1) * stride]
        candidates = []
        for ftype in filters:
            f = bytearray(stride)
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pred = (0, a, b, (a + b) >> 1, paeth(a, b, c))[ftype]
                f[i] = (row[i] - pred) & 0xFF
            cost = sum(v if v < 128 else 256 - v for v in f)
            candidates.append((cost, ftype, f))
        cost, ftype, f = min(candidates, key=lambda c: (c[0], c[1]))
        out.append(ftype)
        out += f
        prev = row
    return bytes(out)


def encode_png(width, height, pixels, channels, filters=range(5)):
    """pixels: bytes, row-major, 8 bits per channel; channels 3 (RGB) or 4 (RGBA)."""
    color_type = {3: 2, 4: 6}[channels]
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    idat = zlib.compress(filter_rows(pixels, width, height, channels, filters), 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


def decode_png_for_check(data):
    """(IHDR, decompressed IDAT) of a PNG we wrote.

    --check compares these when the bytes differ, because another zlib build
    may compress the same pixels to different bytes; that is not a change.
    (Our row filters depend only on the pixels, so the stream is stable.)
    """
    pos, ihdr, idat = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return ihdr, zlib.decompress(idat)


# --------------------------------------------------------------------------
# Canvas and signed-distance shapes
#
# Sprites are built from signed distance functions (negative inside), painted
# with 4x4 supersampling: edges get clean anti-aliasing, and glows/rims fall
# out of the same distances.


class Canvas:
    """RGBA image as premultiplied floats in 0..1, painted with 'over'."""

    def __init__(self, width, height):
        self.width, self.height = width, height
        self.px = [0.0] * (width * height * 4)

    def over(self, x, y, color, alpha):
        if alpha <= 0.0:
            return
        alpha = min(alpha, 1.0)
        i = (y * self.width + x) * 4
        p, keep = self.px, 1.0 - alpha
        p[i] = color[0] / 255.0 * alpha + p[i] * keep
        p[i + 1] = color[1] / 255.0 * alpha + p[i + 1] * keep
        p[i + 2] = color[2] / 255.0 * alpha + p[i + 2] * keep
        p[i + 3] = alpha + p[i + 3] * keep

    def paste(self, other, ox, oy):
        """Copy another canvas in (used to lay out animation frames)."""
        for y in range(other.height):
            for x in range(other.width):
                s = (y * other.width + x) * 4
                d = ((y + oy) * self.width + x + ox) * 4
                self.px[d : d + 4] = other.px[s : s + 4]

    def rgba_bytes(self):
        out = bytearray()
        p = self.px
        for i in range(0, len(p), 4):
            a = p[i + 3]
            if a <= 0.0:
                out += b"\0\0\0\0"
                continue
            for c in range(3):
                out.append(clamp(int(p[i + c] / a * 255.0 + 0.5), 0, 255))
            out.append(clamp(int(a * 255.0 + 0.5), 0, 255))
        return bytes(out)

    def png(self, filters=range(5)):
        return encode_png(self.width, self.height, self.rgba_bytes(), 4, filters)


SUB = [(k + 0.5) / 4.0 for k in range(4)]


def fill(canvas, sdf, color, alpha=1.0):
    """Paint the inside of `sdf` with anti-aliased edges."""
    for y in range(canvas.height):
        for x in range(canvas.width):
            d = sdf(x + 0.5, y + 0.5)
            if d > 1.0:
                continue  # a pixel is at most ~0.71 from its centre
            if d < -1.0:
                cover = 1.0
            else:
                hits = sum(
                    1 for sy in SUB for sx in SUB if sdf(x + sx, y + sy) <= 0.0
                )
                cover = hits / 16.0
            canvas.over(x, y, color, alpha * cover)


def glow(canvas, sdf, color, width, strength):
    """A soft halo outside `sdf`: the 'neon' look, and it separates sprites
    from the busy background."""
    for y in range(canvas.height):
        for x in range(canvas.width):
            d = sdf(x + 0.5, y + 0.5)
            if d < width:
                k = 1.0 - max(d, 0.0) / width
                canvas.over(x, y, color, strength * k * k)


def circle(cx, cy, r):
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def ellipse(cx, cy, rx, ry):
    # Not an exact distance, but close enough for small shapes.
    return lambda x, y: (math.hypot((x - cx) / rx, (y - cy) / ry) - 1.0) * min(rx, ry)


def box(cx, cy, hw, hh):
    def sdf(x, y):
        dx, dy = abs(x - cx) - hw, abs(y - cy) - hh
        return math.hypot(max(dx, 0.0), max(dy, 0.0)) + min(max(dx, dy), 0.0)

    return sdf


def segment(ax, ay, bx, by, r):
    """A capsule: the line a-b thickened to radius r."""
    ex, ey = bx - ax, by - ay
    ee = ex * ex + ey * ey

    def sdf(x, y):
        t = clamp(((x - ax) * ex + (y - ay) * ey) / ee, 0.0, 1.0)
        return math.hypot(x - ax - ex * t, y - ay - ey * t) - r

    return sdf


def polygon(points):
    """Exact signed distance to a simple polygon (even-odd inside test)."""

    def sdf(x, y):
        best, inside = float("inf"), False
        for i in range(len(points)):
            ax, ay = points[i - 1]
            bx, by = points[i]
            ex, ey = bx - ax, by - ay
            wx, wy = x - ax, y - ay
            t = clamp((wx * ex + wy * ey) / (ex * ex + ey * ey), 0.0, 1.0)
            dx, dy = wx - ex * t, wy - ey * t
            best = min(best, dx * dx + dy * dy)
            if (ay > y) != (by > y) and x < ax + (y - ay) * ex / ey:
                inside = not inside
        d = math.sqrt(best)
        return -d if inside else d

    return sdf


def mirrored(half):
    """A left-right symmetric polygon from its right half, listed top to
    bottom with the first and last points on the vertical axis."""
    cx = half[0][0]
    left = [(2 * cx - x, y) for x, y in reversed(half[1:-1])]
    return half + left


def union(*sdfs):
    return lambda x, y: min(s(x, y) for s in sdfs)


def inner_rim(sdf, width):
    """The band of `width` just inside the edge of `sdf`."""
    return lambda x, y: max(sdf(x, y), -sdf(x, y) - width)


def neon_body(canvas, body, color, glow_width, rim_width=1.5):
    """Halo, dark tinted hull, bright rim: the house style for every sprite."""
    glow(canvas, body, color, glow_width, 0.45)
    fill(canvas, body, scale(color, 0.22))
    fill(canvas, inner_rim(body, rim_width), mix(color, WHITE, 0.25))


# --------------------------------------------------------------------------
# Ships (24x24, nose up)

P1_COLOR = (70, 215, 255)  # cyan
P2_COLOR = (255, 150, 40)  # orange

# The right half of the hull, nose to tail notch, on the axis x = 12.
SHIP_HALF = [(12, 1), (15.5, 9), (22.5, 18), (22, 21.5), (15.5, 19.5), (12, 21.5)]


def ship(color, twin_engines):
    """A delta-wing fighter, nose up, with a bright canopy."""
    c = Canvas(24, 24)
    hull = polygon(mirrored(SHIP_HALF))
    # Engine glow first, so the hull sits on top of it.
    # P2's twin engines make the ships differ in more than hue, for
    # colour-blind players.
    engines = [(9.0, 20.5), (15.0, 20.5)] if twin_engines else [(12.0, 21.5)]
    for ex, ey in engines:
        glow(c, circle(ex, ey + 1.0, 0.8), mix(color, WHITE, 0.5), 2.5, 0.9)
    neon_body(c, hull, color, 2.0, 1.5)
    # A spine and a bright canopy; the canopy also marks the nose end.
    fill(c, segment(12, 14, 12, 19, 0.6), scale(color, 0.8))
    fill(c, ellipse(12, 10.5, 1.8, 3.0), mix(color, WHITE, 0.8))
    return c


def ship_p1():
    return ship(P1_COLOR, twin_engines=False)


def ship_p2():
    return ship(P2_COLOR, twin_engines=True)


# --------------------------------------------------------------------------
# Enemies (40x40): different in shape AND colour, so they read at a glance

WANDERER_COLOR = (90, 240, 110)  # green: harmless-looking drifter
SHOOTER_COLOR = (185, 95, 255)  # violet: its bullets are hot pink
CHARGER_COLOR = (255, 55, 70)  # red: danger, it comes for you


def wanderer():
    """A soft, wobbly spore: round, six lobes, one eye."""
    c = Canvas(40, 40)

    def body(x, y):
        a = math.atan2(y - 20, x - 20)
        return math.hypot(x - 20, y - 20) - (13.0 + 2.2 * math.cos(6 * a))

    neon_body(c, body, WANDERER_COLOR, 3.5)
    fill(c, inner_rim(circle(20, 20, 8.5), 1.0), scale(WANDERER_COLOR, 0.75))
    for k in range(6):
        # Dots in the lobes give it a slow-spinning, organic feel.
        a = k * math.pi / 3
        fill(c, circle(20 + 11.5 * math.cos(a), 20 + 11.5 * math.sin(a), 1.1), WANDERER_COLOR)
    fill(c, circle(20, 20, 4.2), mix(WANDERER_COLOR, WHITE, 0.35))
    fill(c, circle(20, 20, 1.8), scale(WANDERER_COLOR, 0.15))
    return c


def shooter():
    """A boxy turret: octagon hull, four barrels, a hot core."""
    c = Canvas(40, 40)
    r = 12.5
    corners = [math.pi / 8 + k * math.pi / 4 for k in range(8)]  # flat sides N/E/S/W
    octagon = polygon([(20 + r * math.cos(a), 20 + r * math.sin(a)) for a in corners])
    barrels = union(box(20, 20, 2.6, 17.0), box(20, 20, 17.0, 2.6))
    body = union(octagon, barrels)
    neon_body(c, body, SHOOTER_COLOR, 2.0)
    for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
        # Muzzles glow: it fires in any of these directions.
        along, across = 1.2, 2.6
        hw, hh = (along, across) if dx else (across, along)
        fill(c, box(20 + dx * 15.8, 20 + dy * 15.8, hw, hh), mix(SHOOTER_COLOR, WHITE, 0.6))
    fill(c, inner_rim(box(20, 20, 6.0, 6.0), 1.2), scale(SHOOTER_COLOR, 0.8))
    glow(c, circle(20, 20, 2.5), (255, 110, 210), 3.0, 0.8)
    fill(c, circle(20, 20, 2.8), (255, 190, 240))
    return c


# The right half of the charger, top to bottom, on the axis x = 20: a horned
# head that narrows to a point at the back.
CHARGER_HALF = [
    (20, 11), (25, 12), (29, 8), (31, 2), (34, 8), (33, 15), (31, 21), (26, 30), (20, 38)
]


def charger():
    """A horned bull's head, horns forward (up), with angry eye slits."""
    c = Canvas(40, 40)
    body = polygon(mirrored(CHARGER_HALF))
    neon_body(c, body, CHARGER_COLOR, 2.5)
    # A spine and slanted eyes: it looks where it is going.
    fill(c, segment(20, 24, 20, 31, 0.6), scale(CHARGER_COLOR, 0.6))
    eye = mix(CHARGER_COLOR, (255, 230, 120), 0.75)
    fill(c, segment(13, 16, 17.5, 19.5, 1.2), eye)
    fill(c, segment(27, 16, 22.5, 19.5, 1.2), eye)
    return c


# --------------------------------------------------------------------------
# Bullets


def bullet_player():
    """8x8: a white-hot dot with a pale blue halo (shared by both players, and
    near-white so the game can tint it per player)."""
    c = Canvas(8, 8)
    glow(c, circle(4, 4, 1.5), (170, 230, 255), 2.5, 0.8)
    fill(c, circle(4, 4, 2.0), (235, 250, 255))
    return c


def bullet_enemy():
    """10x10: a hot-pink ring around a white centre; unlike anything friendly."""
    c = Canvas(10, 10)
    glow(c, circle(5, 5, 3.0), (255, 60, 170), 2.0, 0.7)
    fill(c, circle(5, 5, 3.8), (255, 70, 170))
    fill(c, circle(5, 5, 2.0), (255, 225, 245))
    return c


# --------------------------------------------------------------------------
# Explosion: 8 frames of 48x48 in one horizontal strip


EXPLOSION_FRAMES = 8
EXPLOSION_SIZE = 48


def explosion_frame(f, sparks):
    """Frame f: a flash, then a shock ring and spark streaks that spread,
    cool from white to red, and fade out."""
    c = Canvas(EXPLOSION_SIZE, EXPLOSION_SIZE)
    mid = EXPLOSION_SIZE / 2
    t = (f + 1) / EXPLOSION_FRAMES  # progress of the blast
    grow = 1.0 - (1.0 - t) ** 2  # fast out, slowing down
    fade = (1.0 - f / EXPLOSION_FRAMES) ** 1.5  # 1.0 -> ~0.04: alpha fades
    # Heat colour cools from white through yellow and orange to dull red.
    hot = mix((255, 245, 190), (255, 150, 30), clamp(t * 1.6, 0, 1))
    hot = mix(hot, (200, 40, 30), clamp(t * 1.6 - 0.6, 0, 1))
    ring_r = 3 + 11 * grow

    # A faint warm haze inside the ring, not a dark disc over the arena.
    fill(c, circle(mid, mid, ring_r), hot, 0.18 * fade)
    if f < 2:  # the initial flash only lasts a moment
        core = circle(mid, mid, 7.0 - 2.0 * f)
        glow(c, core, (255, 240, 200), 4.0, 0.9 - 0.4 * f)
        fill(c, core, (255, 255, 240), 1.0 - 0.3 * f)
    half_width = 0.6 + 2.4 * (1 - t)  # the shock ring thins as it spreads

    def ring(x, y):
        return abs(math.hypot(x - mid, y - mid) - ring_r) - half_width

    glow(c, ring, hot, 2.5, 0.6 * fade)
    fill(c, ring, mix(hot, WHITE, 0.3 * (1 - t)), fade)
    for angle, speed, size in sparks:
        d = 4 + 18 * speed * grow  # sparks outrun the ring
        x, y = mid + d * math.cos(angle), mid + d * math.sin(angle)
        tail = 5.0 * (1 - t) + 1.0  # streaks shorten as they slow down
        x0, y0 = mid + (d - tail) * math.cos(angle), mid + (d - tail) * math.sin(angle)
        fill(c, segment(x0, y0, x, y, size * (1.1 - t)), mix(hot, (255, 230, 120), 0.5), fade)
    return c


def explosion():
    """The same sparks in every frame, so they move rather than flicker."""
    rng = Rng(0xB00)
    sparks = []
    for k in range(14):
        angle = (k + rng.uniform(-0.35, 0.35)) * 2 * math.pi / 14
        sparks.append((angle, rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.2)))
    strip = Canvas(EXPLOSION_SIZE * EXPLOSION_FRAMES, EXPLOSION_SIZE)
    for f in range(EXPLOSION_FRAMES):
        strip.paste(explosion_frame(f, sparks), f * EXPLOSION_SIZE, 0)
    return strip


# --------------------------------------------------------------------------
# Background: 640x360 opaque starfield, drawn 2x behind everything

BG_W, BG_H = 640, 360
GRID = 40  # world units: 16 x 9 cells, lines away from the arena's edges

# Ordered dither: very dark gradients band visibly at 8 bits per channel.
BAYER4 = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]


def lattice(ix, iy, seed):
    """Integer hash of a lattice point to [0, 1]."""
    h = (ix * 374761393 + iy * 668265263 + seed * 1442695041) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    return (h ^ (h >> 16)) / 0xFFFFFFFF


def value_noise(x, y, seed):
    ix, iy = math.floor(x), math.floor(y)
    fx, fy = x - ix, y - iy
    sx, sy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    top = lerp(lattice(ix, iy, seed), lattice(ix + 1, iy, seed), sx)
    bottom = lerp(lattice(ix, iy + 1, seed), lattice(ix + 1, iy + 1, seed), sx)
    return lerp(top, bottom, sy)


def fbm(x, y, seed, octaves=5):
    total, amp, norm = 0.0, 1.0, 0.0
    for o in range(octaves):
        total += amp * value_noise(x, y, seed + o)
        norm += amp
        x, y, amp = x * 2.03, y * 2.03, amp * 0.5
    return total / norm


def nebula_field(seed, step=4):
    """Cloud density on a coarse grid (noise is slow in pure Python and the
    clouds are smooth anyway); sampled back up bilinearly."""
    gw, gh = BG_W // step + 2, BG_H // step + 2
    grid = [
        [fbm(gx * step / 150.0, gy * step / 150.0, seed) for gx in range(gw)]
        for gy in range(gh)
    ]

    def at(x, y):
        gx, gy = x / step, y / step
        ix, iy = int(gx), int(gy)
        fx, fy = gx - ix, gy - iy
        top = lerp(grid[iy][ix], grid[iy][ix + 1], fx)
        bottom = lerp(grid[iy + 1][ix], grid[iy + 1][ix + 1], fx)
        return lerp(top, bottom, fy)

    return at


def background():
    teal = nebula_field(11)
    violet = nebula_field(23)
    img = [[0.0, 0.0, 0.0] for _ in range(BG_W * BG_H)]
    for y in range(BG_H):
        for x in range(BG_W):
            # Base: near-black navy, a touch lighter at the bottom.
            v = y / BG_H
            col = [lerp(6, 9, v), lerp(8, 8, v), lerp(20, 26, v)]
            # Two nebula layers, kept dim so sprites always win.
            a = smoothstep(0.42, 0.78, teal(x, y)) * 0.65
            b = smoothstep(0.48, 0.80, violet(x, y)) * 0.6
            for i, (ta, vb) in enumerate(zip((14, 46, 70), (50, 16, 64))):
                col[i] += ta * a + vb * b
            if (x % GRID == 0 and 0 < x < BG_W) or (y % GRID == 0 and 0 < y < BG_H):
                # Faint grid, brighter where lines cross: a sense of speed and place.
                cross = x % GRID == 0 and y % GRID == 0
                for i, g in enumerate((7, 10, 22)):
                    col[i] += g * (1.8 if cross else 1.0)
            # Vignette pulls the eye to the middle.
            dx, dy = (x - BG_W / 2) / (BG_W / 2), (y - BG_H / 2) / (BG_H / 2)
            k = 1.0 - 0.3 * (dx * dx + dy * dy) / 2
            img[y * BG_W + x] = [ch * k for ch in col]

    rng = Rng(0x57A75)
    tints = [(1.0, 1.0, 1.0), (0.75, 0.85, 1.0), (1.0, 0.88, 0.72), (0.85, 0.8, 1.0)]
    for _ in range(460):
        x, y = rng.below(BG_W), rng.below(BG_H)
        roll = rng.uniform()
        tint = tints[rng.below(len(tints))]
        if roll < 0.75:
            bright = rng.uniform(35, 85)  # distant dust
        elif roll < 0.97:
            bright = rng.uniform(85, 150)
        else:
            bright = rng.uniform(160, 215)  # a few bright ones get a sparkle
            for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if 0 <= nx < BG_W and 0 <= ny < BG_H:
                    p = img[ny * BG_W + nx]
                    for i in range(3):
                        p[i] = max(p[i], bright * 0.35 * tint[i])
        p = img[y * BG_W + x]
        for i in range(3):
            p[i] = max(p[i], bright * tint[i])

    out = bytearray()
    for y in range(BG_H):
        for x in range(BG_W):
            d = (BAYER4[y % 4][x % 4] + 0.5) / 16.0
            for ch in img[y * BG_W + x]:
                out.append(clamp(int(ch + d), 0, 255))
    return encode_png(BG_W, BG_H, bytes(out), 3)


# --------------------------------------------------------------------------
# Bitmap font: 5x9 glyphs (7 above the baseline, 2 below) in 6x10 cells
#
# One string per glyph, rows top to bottom separated by spaces, '#' = ink.
# Rows left out at the bottom are blank. Readability rules: 0 is slashed
# (O is not); 1 has a flag and a foot, I has serifs top and bottom, l has a
# tail; 5/S and 2/Z, 8/B differ in their corners.

GLYPH_W, GLYPH_H = 5, 9
CELL_W, CELL_H = 6, 10
FONT_COLUMNS = 16
FIRST_CHAR, LAST_CHAR = 32, 126
BASELINE = 7  # rows above the baseline

GLYPHS = {
    " ": "",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
    '"': ".#.#. .#.#. .#.#.",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "$": "..#.. .#### #.#.. .###. ..#.# ####. ..#..",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#",
    "'": "..#.. ..#.. .#...",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    ",": "..... ..... ..... ..... ..... .##.. .##.. ..#.. .#...",
    "-": "..... ..... ..... ##### ..... ..... .....",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    "/": "....# ....# ...#. ..#.. .#... #.... #....",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. #.#.. ..#.. ..#.. ..#.. #####",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    ";": "..... .##.. .##.. ..... .##.. .##.. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
    "=": "..... ..... ##### ..... ##### ..... .....",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "@": ".###. #...# #.### #.#.# #.### #.... .####",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "\\": "#.... #.... .#... ..#.. ...#. ....# ....#",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "^": "..#.. .#.#. #...#",
    "_": "..... ..... ..... ..... ..... ..... ..... ..... #####",
    "`": ".#... ..#..",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... ####. #...# #...# #...# ####.",
    "c": "..... ..... .#### #.... #.... #.... .####",
    "d": "....# ....# .#### #...# #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ####. .#... .#... .#...",
    "g": "..... ..... .#### #...# #...# #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#",
    "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. ...#. ...#. #..#. .##..",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. ...##",
    "m": "..... ..... ##.#. #.#.# #.#.# #.#.# #...#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# #...# #...# ####. #.... #....",
    "q": "..... ..... .#### #...# #...# #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .#### #.... .###. ....# ####.",
    "t": ".#... .#... ####. .#... .#... .#..# ..##.",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    "{": "...## ..#.. ..#.. .#... ..#.. ..#.. ...##",
    "|": "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "}": "##... ..#.. ..#.. ...#. ..#.. ..#.. ##...",
    "~": "..... ..... .#... #.#.# ...#. .....",
}


def glyph_rows(ch):
    rows = GLYPHS[ch].split()
    assert len(rows) <= GLYPH_H, f"glyph {ch!r} has {len(rows)} rows"
    assert all(len(r) == GLYPH_W and set(r) <= {".", "#"} for r in rows), ch
    return rows + ["." * GLYPH_W] * (GLYPH_H - len(rows))


def font():
    """White glyphs on transparent: the game tints them with its draw colour."""
    count = LAST_CHAR - FIRST_CHAR + 1
    assert sorted(GLYPHS) == [chr(c) for c in range(FIRST_CHAR, LAST_CHAR + 1)]
    rows = (count + FONT_COLUMNS - 1) // FONT_COLUMNS
    w, h = FONT_COLUMNS * CELL_W, rows * CELL_H
    pixels = bytearray(w * h * 4)
    for n in range(count):
        ox, oy = (n % FONT_COLUMNS) * CELL_W, (n // FONT_COLUMNS) * CELL_H
        for gy, row in enumerate(glyph_rows(chr(FIRST_CHAR + n))):
            for gx, ink in enumerate(row):
                if ink == "#":
                    i = ((oy + gy) * w + ox + gx) * 4
                    pixels[i : i + 4] = b"\xff\xff\xff\xff"
    meta = {
        "image": "font.png",
        "glyph_width": CELL_W,
        "glyph_height": CELL_H,
        "columns": FONT_COLUMNS,
        "rows": rows,
        "first_char": FIRST_CHAR,
        "glyph_count": count,
        "advance": CELL_W,
        "line_height": CELL_H + 1,
        "baseline": BASELINE,
        "note": "Glyph n (char first_char + n) is the cell at column n % columns, "
        "row n / columns. Ink is white; transparent elsewhere. Monospaced.",
    }
    text = json.dumps(meta, indent=2) + "\n"
    return encode_png(w, h, bytes(pixels), 4), text.encode()


# --------------------------------------------------------------------------
# Sounds: 16-bit mono PCM at 22050 Hz, chiptune-style synthesis
#
# Each sound is scaled to a loudness (RMS, in dB below full scale) set by
# its role: frequent sounds (shots, menu ticks) quiet, rare events (death,
# game over) louder. RMS, not peak, because a square wave sounds far louder
# than a decaying noise burst of the same peak. Peaks are capped at 0.9 of
# full scale, so nothing clips.

RATE = 22050


def n_samples(seconds):
    return int(round(seconds * RATE))


def square(phase, duty=0.5):
    return 1.0 if phase % 1.0 < duty else -1.0


def triangle(phase):
    return 4.0 * abs(phase % 1.0 - 0.5) - 1.0


def tone(seconds, f0, f1=None, osc=square, duty=0.5, vibrato=0.0):
    """An oscillator sweeping exponentially from f0 to f1 Hz (pitch sweeps
    sound even to the ear when exponential)."""
    f1 = f0 if f1 is None else f1
    n = n_samples(seconds)
    out, phase = [], 0.0
    for i in range(n):
        t = i / max(n - 1, 1)
        f = f0 * (f1 / f0) ** t
        if vibrato:
            f *= 1.0 + vibrato * math.sin(2 * math.pi * 5.5 * i / RATE)
        out.append(osc(phase, duty) if osc is square else osc(phase))
        phase += f / RATE
    return out


def noise(seconds, rng, hold0=1, hold1=None):
    """White noise held for `hold` samples: longer holds sound lower and
    rumblier; sweeping the hold makes a falling crash."""
    hold1 = hold0 if hold1 is None else hold1
    n = n_samples(seconds)
    out, value, left = [], 0.0, 0
    for i in range(n):
        if left <= 0:
            value = rng.uniform(-1.0, 1.0)
            left = int(round(lerp(hold0, hold1, i / max(n - 1, 1))))
        out.append(value)
        left -= 1
    return out


def envelope(samples, attack=0.002, decay=None, power=1.0):
    """Short linear attack (no click), then an exponential decay with time
    constant `decay` seconds, or (1 - t)^power over the whole sound."""
    n = len(samples)
    a = max(n_samples(attack), 1)
    out = []
    for i, s in enumerate(samples):
        g = min(1.0, i / a)
        if decay is not None:
            g *= math.exp(-i / RATE / decay)
        else:
            g *= (1.0 - i / n) ** power
        out.append(s * g)
    return out


def mix_tracks(*tracks):
    """Sum (track, gain, start_seconds) triples."""
    length = max(n_samples(start) + len(t) for t, _, start in tracks)
    out = [0.0] * length
    for t, gain, start in tracks:
        o = n_samples(start)
        for i, s in enumerate(t):
            out[o + i] += s * gain
    return out


MAX_PEAK = 0.9


def finish(samples, loudness_db):
    """Fade the last 4 ms to silence (no click), then scale to `loudness_db`
    RMS unless that would push the peak past MAX_PEAK."""
    n = len(samples)
    tail = min(n_samples(0.004), n)
    samples = [s * min(1.0, (n - 1 - i) / tail) for i, s in enumerate(samples)]
    rms = math.sqrt(sum(s * s for s in samples) / n)
    top = max(abs(s) for s in samples)
    gain = min(10 ** (loudness_db / 20) / rms, MAX_PEAK / top)
    return [s * gain for s in samples]


def wav_bytes(samples):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        pcm = [clamp(int(round(s * 32767)), -32767, 32767) for s in samples]
        w.writeframes(struct.pack(f"<{len(pcm)}h", *pcm))
    return buf.getvalue()


def sound_shot():
    """A quick falling zap; it plays constantly, so it is short and quiet."""
    rng = Rng(1)
    zap = envelope(tone(0.10, 1600, 420, duty=0.25), decay=0.035)
    click = envelope(noise(0.02, rng), decay=0.006)
    return finish(mix_tracks((zap, 1.0, 0), (click, 0.35, 0)), -20)


def sound_hit():
    """A crunchy noise tick with a low thud under it."""
    rng = Rng(2)
    crunch = envelope(noise(0.12, rng, 2), decay=0.03)
    thud = envelope(tone(0.12, 330, 110, duty=0.5), decay=0.045)
    return finish(mix_tracks((crunch, 0.7, 0), (thud, 0.5, 0)), -17)


def sound_death():
    """A crash that falls in pitch while it fades, over a diving square."""
    rng = Rng(3)
    crash = envelope(noise(0.65, rng, 1, 14), power=2.0)
    dive = envelope(tone(0.6, 240, 35, duty=0.5), power=1.5)
    return finish(mix_tracks((crash, 0.8, 0), (dive, 0.45, 0)), -14)


def note(freq, seconds, duty=0.25, decay=0.25):
    """A chip 'instrument': pulse wave plus a triangle an octave down."""
    pulse = tone(seconds, freq, duty=duty)
    bass = tone(seconds, freq / 2, osc=triangle)
    return envelope([p * 0.6 + b * 0.5 for p, b in zip(pulse, bass)], attack=0.004, decay=decay)


def echo(samples, delay, gain):
    """One quieter repeat: makes short arpeggios sound like a fanfare."""
    return mix_tracks((samples, 1.0, 0), (samples, gain, delay))


def sound_wave_start():
    """A rising major arpeggio, A4 C#5 E5 A5: the next wave is coming."""
    notes = [(440.00, 0.0), (554.37, 0.11), (659.26, 0.22), (880.00, 0.33)]
    parts = [(note(f, 0.11, decay=0.08), 1.0, at) for f, at in notes[:-1]]
    parts.append((note(notes[-1][0], 0.5, decay=0.14), 1.0, notes[-1][1]))
    return finish(echo(mix_tracks(*parts), 0.12, 0.35), -15)


def sound_game_over():
    """A slow falling minor line, G4 Eb4 C4, ending on a long wobbling G3."""
    parts = [
        (note(392.00, 0.30, duty=0.5, decay=0.2), 1.0, 0.0),
        (note(311.13, 0.30, duty=0.5, decay=0.2), 1.0, 0.30),
        (note(261.63, 0.30, duty=0.5, decay=0.2), 1.0, 0.60),
    ]
    last = tone(1.1, 196.00, duty=0.5, vibrato=0.012)
    low = tone(1.1, 98.00, osc=triangle)
    held = envelope([a * 0.6 + b * 0.5 for a, b in zip(last, low)], attack=0.004, power=1.6)
    parts.append((held, 1.0, 0.90))
    return finish(echo(mix_tracks(*parts), 0.18, 0.3), -15)


def sound_menu_move():
    """The quietest tick: it repeats as the cursor moves."""
    return finish(envelope(tone(0.045, 880, duty=0.5), decay=0.015), -21)


def sound_menu_select():
    """Two rising blips: confirm."""
    a = envelope(tone(0.035, 660, duty=0.25), decay=0.02)
    b = envelope(tone(0.055, 990, duty=0.25), decay=0.025)
    return finish(mix_tracks((a, 1.0, 0), (b, 1.0, 0.035)), -19)


# The event sounds added with the music (issue 58) are stored smaller: 8-bit
# unsigned mono at 11025 Hz, a quarter of the bytes of the 16-bit 22050 Hz
# files above. They are embedded in the page's wasm, whose download budget
# is tight, and chip sounds keep their character at 8 bits. They are
# synthesised at RATE like the rest, then halved (each pair of samples
# averaged: a gentle low-pass against aliasing) and quantised.

SMALL_RATE = RATE // 2


def small_wav_bytes(samples):
    halved = [(samples[i] + samples[i + 1]) / 2 for i in range(0, len(samples) - 1, 2)]
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(SMALL_RATE)
        w.writeframes(bytes(clamp(int(round(s * 127)) + 128, 1, 255) for s in halved))
    return buf.getvalue()


def blip(freq, seconds, duty=0.25, decay=0.05, f1=None):
    return envelope(tone(seconds, freq, f1, duty=duty), decay=decay)


def notes_at(freqs, step, seconds, duty=0.25, decay=0.06):
    """A quick arpeggio: one blip per frequency, `step` seconds apart."""
    return mix_tracks(*[(note(f, seconds, duty, decay), 1.0, i * step) for i, f in enumerate(freqs)])


def sound_partner_hit():
    """The partner lost a life: a hollow two-note fall over a short crash,
    lighter than your own ship's crash (death.wav)."""
    rng = Rng(11)
    fall = notes_at([523.25, 349.23], 0.09, 0.16, duty=0.5, decay=0.07)
    crash = envelope(noise(0.2, rng, 2, 8), power=2.0)
    return finish(mix_tracks((fall, 1.0, 0), (crash, 0.5, 0)), -17)


def sound_shield_break():
    """A glassy crack: high noise and a falling high square."""
    rng = Rng(12)
    crack = envelope(noise(0.15, rng, 1), decay=0.03)
    ring = envelope(tone(0.22, 2200, 900, duty=0.125), decay=0.06)
    return finish(mix_tracks((crack, 0.6, 0), (ring, 0.6, 0)), -18)


def sound_downed():
    """A ship is down: a slow siren falling a fifth, twice."""
    a = envelope(tone(0.3, 660, 440, duty=0.5, vibrato=0.02), attack=0.01, power=0.7)
    b = envelope(tone(0.38, 587, 392, duty=0.5, vibrato=0.02), attack=0.01, power=1.2)
    return finish(mix_tracks((a, 1.0, 0), (b, 1.0, 0.3)), -16)


def sound_revived():
    """Back up: a rising C major arpeggio ending high."""
    return finish(echo(notes_at([523.25, 659.26, 783.99, 1046.5], 0.07, 0.14), 0.1, 0.3), -16)


def sound_respawn():
    """A new life: a short rising shimmer."""
    shimmer = envelope(tone(0.28, 300, 1200, duty=0.25, vibrato=0.03), attack=0.02, power=1.5)
    return finish(shimmer, -19)


def pop(seed, seconds, hold0, hold1, f0, f1, duty, tone_gain, loudness):
    """An enemy's death: a noise burst falling in pitch over a diving tone;
    the kinds differ by length, noise colour and pitch."""
    rng = Rng(seed)
    burst = envelope(noise(seconds, rng, hold0, hold1), power=2.0)
    dive = envelope(tone(seconds, f0, f1, duty=duty), power=1.5)
    return finish(mix_tracks((burst, 0.8, 0), (dive, tone_gain, 0)), loudness)


def sound_kill_wanderer():
    """The commonest kill: a short soft puff."""
    return pop(21, 0.16, 1, 4, 700, 250, 0.5, 0.4, -20)


def sound_kill_shooter():
    """A turret popping: a mid crunch with a falling square."""
    return pop(22, 0.22, 2, 6, 500, 120, 0.25, 0.5, -19)


def sound_kill_charger():
    """The horned head: a low thump."""
    return pop(23, 0.26, 3, 10, 220, 55, 0.5, 0.7, -18)


def sound_kill_sniper():
    """A high snap: bright noise and a quick high fall."""
    return pop(24, 0.18, 1, 2, 1800, 500, 0.125, 0.5, -19)


def sound_kill_splitter():
    """Bursting into three: three quick crunches."""
    one = pop(25, 0.12, 2, 5, 400, 150, 0.5, 0.5, -18)
    return finish(mix_tracks((one, 1.0, 0), (one, 0.8, 0.06), (one, 0.6, 0.12)), -18)


def sound_kill_splitling():
    """The smallest fragment: a tiny high tick."""
    return pop(26, 0.08, 1, 1, 1400, 900, 0.25, 0.6, -22)


def sound_kill_spinner():
    """The ring-thrower: a falling whirl (vibrato) with a crash."""
    rng = Rng(27)
    crash = envelope(noise(0.34, rng, 1, 8), power=2.0)
    whirl = envelope(tone(0.34, 900, 150, duty=0.25, vibrato=0.08), power=1.2)
    return finish(mix_tracks((crash, 0.7, 0), (whirl, 0.6, 0)), -17)


def sound_boss_explodes():
    """A boss breaking apart: a long rumbling crash with a deep dive, and
    two smaller blasts inside it."""
    rng = Rng(28)
    rumble = envelope(noise(1.0, rng, 2, 24), attack=0.004, power=1.8)
    dive = envelope(tone(1.0, 160, 30, duty=0.5), power=1.2)
    blast = envelope(noise(0.25, Rng(29), 1, 6), power=2.0)
    return finish(
        mix_tracks((rumble, 0.8, 0), (dive, 0.5, 0), (blast, 0.5, 0.2), (blast, 0.4, 0.45)), -13
    )


def sound_enemy_shot():
    """Enemies fire often: the quietest, shortest sound, a soft low pew."""
    return finish(blip(700, 0.06, duty=0.5, decay=0.02, f1=350), -25)


def sound_spawn():
    """A spawn marker appears: two soft rising blips, a warning."""
    a = blip(330, 0.08, duty=0.5, decay=0.04, f1=440)
    b = blip(440, 0.12, duty=0.5, decay=0.05, f1=587)
    return finish(mix_tracks((a, 1.0, 0), (b, 1.0, 0.1)), -22)


def sound_windup_charge():
    """A charger winding up: a rising growl, loudest just before the dash."""
    growl = tone(0.45, 70, 200, duty=0.5)
    grit = noise(0.45, Rng(31), 6, 2)
    n = len(growl)
    swell = [(0.2 + 0.8 * i / n) * min(1.0, (n - i) / 200) for i in range(n)]
    return finish([(g * 0.7 + r * 0.3) * w for g, r, w in zip(growl, grit, swell)], -19)


def sound_windup_laser():
    """A laser charging (sniper, the Hydra): a thin rising whine."""
    whine = tone(0.5, 900, 2400, duty=0.125, vibrato=0.01)
    n = len(whine)
    swell = [(0.15 + 0.85 * i / n) * min(1.0, (n - i) / 200) for i in range(n)]
    return finish([w * g for w, g in zip(whine, swell)], -22)


def sound_windup_ring():
    """A ring about to fire (spinner, the Warden): a warbling rise."""
    warble = envelope(tone(0.4, 250, 500, duty=0.25, vibrato=0.12), attack=0.05, power=0.6)
    return finish(warble, -20)


def sound_pickup(freqs):
    return finish(notes_at(freqs, 0.05, 0.1, duty=0.25, decay=0.05), -18)


def sound_pickup_spread():
    """Three notes fanning out: a fan of shots."""
    return sound_pickup([523.25, 659.26, 783.99])


def sound_pickup_rapid():
    """Four fast repeated notes: faster fire."""
    return finish(notes_at([880.0] * 4, 0.035, 0.05, duty=0.25, decay=0.02), -18)


def sound_pickup_pierce():
    """A sharp rising sweep: shots going through."""
    return finish(blip(600, 0.2, duty=0.125, decay=0.08, f1=2400), -19)


def sound_pickup_shield():
    """A soft low chord swelling: protection."""
    a = envelope(tone(0.3, 392.0, osc=triangle), attack=0.05, power=1.2)
    b = envelope(tone(0.3, 587.33, osc=triangle), attack=0.05, power=1.2)
    c = envelope(tone(0.3, 784.0, duty=0.25), attack=0.05, power=2.0)
    return finish(mix_tracks((a, 1.0, 0), (b, 0.8, 0), (c, 0.3, 0)), -17)


def sound_pickup_bomb():
    """Two low notes: one more bomb."""
    return sound_pickup([196.0, 261.63])


def sound_pickup_life():
    """The rarest pickup: a bright four-note rise with an echo."""
    return finish(echo(notes_at([659.26, 783.99, 987.77, 1318.5], 0.055, 0.1), 0.08, 0.3), -16)


def sound_bomb():
    """A bomb: a deep boom with a long noise wash."""
    rng = Rng(41)
    wash = envelope(noise(0.8, rng, 1, 20), attack=0.003, power=1.5)
    boom = envelope(tone(0.6, 120, 28, duty=0.5), power=1.3)
    return finish(mix_tracks((wash, 0.7, 0), (boom, 0.7, 0)), -13)


def sound_combo_step():
    """The multiplier went up: one bright upward chirp."""
    return finish(blip(1046.5, 0.09, duty=0.25, decay=0.04, f1=1568), -20)


def sound_combo_lost():
    """The combo broke: a short falling buzz."""
    return finish(blip(440, 0.18, duty=0.5, decay=0.08, f1=180), -20)


def sound_boss_phase():
    """The boss changes phase: a low two-tone alarm, three times."""
    hi = note(233.08, 0.12, duty=0.5, decay=0.1)
    lo = note(174.61, 0.12, duty=0.5, decay=0.1)
    parts = []
    for k in range(3):
        parts += [(hi, 1.0, k * 0.24), (lo, 1.0, k * 0.24 + 0.12)]
    return finish(mix_tracks(*parts), -15)


def sound_boss_defeated():
    """Victory: G C E G rising, the last held with vibrato."""
    run = notes_at([392.0, 523.25, 659.26], 0.1, 0.12, duty=0.25, decay=0.09)
    held = tone(0.6, 783.99, duty=0.25, vibrato=0.015)
    low = tone(0.6, 392.0, osc=triangle)
    top = envelope([a * 0.6 + b * 0.5 for a, b in zip(held, low)], attack=0.004, power=1.3)
    return finish(echo(mix_tracks((run, 1.0, 0), (top, 1.0, 0.3)), 0.12, 0.3), -14)


def sound_wave_cleared():
    """The wave is done: a short falling-then-rising resolve, E D G."""
    return finish(echo(notes_at([659.26, 587.33, 783.99], 0.09, 0.16), 0.1, 0.3), -17)


SMALL_SOUNDS = {
    "partner_hit": sound_partner_hit,
    "shield_break": sound_shield_break,
    "downed": sound_downed,
    "revived": sound_revived,
    "respawn": sound_respawn,
    "kill_wanderer": sound_kill_wanderer,
    "kill_shooter": sound_kill_shooter,
    "kill_charger": sound_kill_charger,
    "kill_sniper": sound_kill_sniper,
    "kill_splitter": sound_kill_splitter,
    "kill_splitling": sound_kill_splitling,
    "kill_spinner": sound_kill_spinner,
    "boss_explodes": sound_boss_explodes,
    "enemy_shot": sound_enemy_shot,
    "spawn": sound_spawn,
    "windup_charge": sound_windup_charge,
    "windup_laser": sound_windup_laser,
    "windup_ring": sound_windup_ring,
    "pickup_spread": sound_pickup_spread,
    "pickup_rapid": sound_pickup_rapid,
    "pickup_pierce": sound_pickup_pierce,
    "pickup_shield": sound_pickup_shield,
    "pickup_bomb": sound_pickup_bomb,
    "pickup_life": sound_pickup_life,
    "bomb": sound_bomb,
    "combo_step": sound_combo_step,
    "combo_lost": sound_combo_lost,
    "boss_phase": sound_boss_phase,
    "boss_defeated": sound_boss_defeated,
    "wave_cleared": sound_wave_cleared,
}


SOUNDS = {
    "shot": sound_shot,
    "hit": sound_hit,
    "death": sound_death,
    "wave_start": sound_wave_start,
    "game_over": sound_game_over,
    "menu_move": sound_menu_move,
    "menu_select": sound_menu_select,
}



# --------------------------------------------------------------------------
# The web app's icons (web/manifest.webmanifest): the two stars of
# assets/linux/twinstar.svg (the page's favicon) on the night, with the
# sprites' neon halo, at the sizes browsers ask for.

# The svg's two stars, in its 64x64 viewBox.
BIG_STAR = [(24, 8), (29, 23), (45, 23), (32, 33), (37, 48), (24, 39), (11, 48), (16, 33), (3, 23), (19, 23)]
SMALL_STAR = [(46, 30), (49, 39), (58, 39), (51, 45), (54, 54), (46, 48), (38, 54), (41, 45), (34, 39), (43, 39)]
NIGHT = (10, 15, 30)
BIG_STAR_COLOR = (136, 204, 255)
SMALL_STAR_COLOR = (255, 170, 102)


def coverage(width, height, polygons):
    """Anti-aliased coverage (0..1 per pixel) of the even-odd union of
    `polygons`, by scanlines: 4 sub-rows per pixel, each span's ends
    covered exactly across the row. Fast enough in plain Python for a
    512x512 icon, where a distance field per pixel is not."""
    cover = [0.0] * (width * height)
    edges = [(p[i - 1], p[i]) for p in polygons for i in range(len(p))]
    for y in range(height):
        row = y * width
        for sy in SUB:
            yy = y + sy
            xs = sorted(
                ax + (yy - ay) * (bx - ax) / (by - ay)
                for (ax, ay), (bx, by) in edges
                if (ay > yy) != (by > yy)
            )
            for x0, x1 in zip(xs[0::2], xs[1::2]):
                x0, x1 = clamp(x0, 0.0, width), clamp(x1, 0.0, width)
                for x in range(int(x0), min(int(math.ceil(x1)), width)):
                    cover[row + x] += (min(x1, x + 1.0) - max(x0, float(x))) / 4.0
    return cover


def box_blur(values, width, height, radius):
    """Three box blurs (close to a Gaussian), rows then columns."""

    def blur_line(line):
        n, out, total = len(line), [0.0] * len(line), 0.0
        window = 2 * radius + 1
        for i in range(-radius, n + radius):
            if i + radius < n:
                total += line[i + radius] if i + radius >= 0 else 0.0
            if i - radius - 1 >= 0:
                total -= line[i - radius - 1]
            if 0 <= i < n:
                out[i] = total / window
        return out

    for _ in range(3):
        for y in range(height):
            values[y * width : (y + 1) * width] = blur_line(values[y * width : (y + 1) * width])
        for x in range(width):
            values[x::width] = blur_line(values[x::width])
    return values


def rounded_square(size, radius, steps=12):
    """The outline of a size x size square with rounded corners."""
    points = []
    for cx, cy, start in (
        (size - radius, radius, -90),
        (size - radius, size - radius, 0),
        (radius, size - radius, 90),
        (radius, radius, 180),
    ):
        for k in range(steps + 1):
            a = math.radians(start + 90 * k / steps)
            points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return points


def app_icon(size, maskable):
    """The stars on the night. A maskable icon is night to its edges with
    the stars inside the middle 70% (the launcher cuts it to any shape
    within the middle 80%); the plain one is the svg's rounded square."""
    c = Canvas(size, size)
    if maskable:
        ground = [(0, 0), (size, 0), (size, size), (0, size)]
        art, offset = size * 0.7 / 64.0, size * 0.15
    else:
        ground = rounded_square(size, size * 12 / 64)
        art, offset = size / 64.0, 0.0
    for i, a in enumerate(coverage(size, size, [ground])):
        c.over(i % size, i // size, NIGHT, a)
    radius = max(1, size // 64)
    for star, color in ((BIG_STAR, BIG_STAR_COLOR), (SMALL_STAR, SMALL_STAR_COLOR)):
        points = [(offset + x * art, offset + y * art) for x, y in star]
        shape = coverage(size, size, [points])
        # The halo reaches 3 blur radii past the star: only that box is
        # blurred (a third of the work for the small star).
        x0 = max(0, int(min(x for x, _ in points)) - 3 * radius - 1)
        y0 = max(0, int(min(y for _, y in points)) - 3 * radius - 1)
        x1 = min(size, int(max(x for x, _ in points)) + 3 * radius + 2)
        y1 = min(size, int(max(y for _, y in points)) + 3 * radius + 2)
        w, h = x1 - x0, y1 - y0
        box = [shape[y * size + x] for y in range(y0, y1) for x in range(x0, x1)]
        halo = box_blur(box, w, h, radius)
        for y in range(y0, y1):
            for x in range(x0, x1):
                c.over(x, y, color, 0.55 * min(halo[(y - y0) * w + x - x0], 1.0))
                c.over(x, y, color, min(shape[y * size + x], 1.0))
    return c


ICONS = {
    "web/icon-192.png": (192, False),
    "web/icon-512.png": (512, False),
    "web/icon-maskable-512.png": (512, True),
    "web/apple-touch-icon.png": (180, True),
}

# --------------------------------------------------------------------------
# Everything, by path


def generate():
    """Every generated file: {path relative to assets/: bytes}, in order."""
    files = {}
    sprites = {
        "ship_p1": ship_p1,
        "ship_p2": ship_p2,
        "wanderer": wanderer,
        "shooter": shooter,
        "charger": charger,
        "bullet_player": bullet_player,
        "bullet_enemy": bullet_enemy,
        "explosion": explosion,
    }
    for name, make in sprites.items():
        files[f"sprites/{name}.png"] = make().png()
    files["sprites/background.png"] = background()
    files["font/font.png"], files["font/font.json"] = font()
    for name, make in SOUNDS.items():
        files[f"sounds/{name}.wav"] = wav_bytes(make())
    for name, make in SMALL_SOUNDS.items():
        files[f"sounds/{name}.wav"] = small_wav_bytes(make())
    for path, (size, maskable) in ICONS.items():
        # No Paeth (the costly filter): 3 s less for the same look.
        files[path] = app_icon(size, maskable).png(filters=(0, 1, 2))
    return files


def same(path, want, have):
    if want == have:
        return True
    if path.endswith(".png") and have.startswith(b"\x89PNG"):
        try:
            return decode_png_for_check(want) == decode_png_for_check(have)
        except (zlib.error, struct.error):
            return False
    return False


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print("usage: python3 scripts/gen-assets.py [--check]", file=sys.stderr)
        return 2
    files = generate()
    for rel, data in files.items():
        path = ASSETS / rel
        if check:
            problem = None
            if not path.exists():
                problem = "is missing"
            elif not same(rel, data, path.read_bytes()):
                problem = "differs from what scripts/gen-assets.py generates"
            if problem:
                fix = "run python3 scripts/gen-assets.py to regenerate"
                print(f"assets/{rel} {problem}; {fix}", file=sys.stderr)
                return 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    verb = "match" if check else "written"
    print(f"{len(files)} generated asset files {verb}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
