"""Pictures of a RoboRally board and its robots: text (`ansi`), RGB arrays (`rgb_array`) and animated GIFs.

Robots are read duck-typed: any object with `x, y, facing, damage, lives, next_flag, on_board, powered_down,
eliminated` (the engine's `Robot`, or a small namedtuple in tests). Robot i is drawn with number i + 1 (its start
square) in colour `ROBOT_COLOURS[i]`; no board element uses those colours, so a robot can be found in a picture.
Shots are any objects with `x0, y0, x1, y1` (a traced laser beam, start and end square).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from envs.roborally.board import BELT, DX, DY, EXPRESS, GEAR_CCW, GEAR_CW, PIT, REPAIR, REPAIR2, Board

# Eight well-separated colours (the "tab10" palette without its red, which marks lasers).
ROBOT_COLOURS = (
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189),
    (140, 86, 75), (227, 119, 194), (188, 189, 34), (23, 190, 207),
)
FLOOR_RGB, GRID_RGB = (196, 196, 196), (160, 160, 160)
PIT_RGB, PIT_INNER_RGB = (22, 22, 28), (48, 48, 58)
BELT_RGB, BELT_ARROW_RGB = (236, 206, 92), (92, 70, 10)
EXPRESS_RGB, EXPRESS_ARROW_RGB = (92, 150, 232), (16, 36, 92)
ROTATING_RGB = (255, 255, 255)
GEAR_CW_RGB, GEAR_CCW_RGB, GEAR_ARROW_RGB = (178, 84, 60), (58, 122, 92), (250, 250, 250)
REPAIR_RGB, REPAIR_MARK_RGB = (64, 150, 84), (250, 250, 250)
WALL_RGB, WALL_EDGE_RGB = (246, 176, 0), (84, 52, 0)
LASER_MOUNT_RGB, LASER_BEAM_RGB, SHOT_RGB = (196, 0, 0), (255, 70, 70), (255, 0, 0)
PUSHER_RGB, CRUSHER_RGB = (92, 92, 104), (72, 72, 72)
FLAG_RGB, FLAG_POLE_RGB, TEXT_RGB, START_RGB = (255, 236, 64), (56, 56, 56), (0, 0, 0), (96, 96, 96)
FLAG_NUMBER_RGB = (255, 255, 255)

FACING_GLYPHS = "^>v<"
_BELT_GLYPHS = "↑→↓←"
_EXPRESS_GLYPHS = "⇑⇒⇓⇐"


# --------------------------------------------------------------------------------------------------- text

def _ansi_cell(board: Board, x: int, y: int, robots_at: dict, flag_at: dict, devices: dict) -> str:
    """Three characters: two for the robot, flag or floor element, one for a device (L laser, P pusher, K crusher)."""
    if (x, y) in robots_at:
        i, robot = robots_at[(x, y)]
        main = f"{i + 1}{FACING_GLYPHS[robot.facing]}"
    elif (x, y) in flag_at:
        k = flag_at[(x, y)]
        main = f"F{k}" if k < 10 else "F*"
    else:
        code = int(board.floor[y, x])
        turn = "~" if board.rotating[y, x] else " "
        if code == BELT:
            main = _BELT_GLYPHS[int(board.belt_dir[y, x])] + turn
        elif code == EXPRESS:
            main = _EXPRESS_GLYPHS[int(board.belt_dir[y, x])] + turn
        else:
            main = {PIT: "XX", GEAR_CW: "gR", GEAR_CCW: "gL", REPAIR: "r1", REPAIR2: "r2"}.get(code, ". ")
    return main + devices.get((x, y), " ")


#: What the characters of `ansi` mean (terminal play prints it under the board).
LEGEND = ("legend: 1^ robot 1 facing north (^ > v < : N E S W), F1 flag 1, ↑→↓← belt, ⇑⇒⇓⇐ express belt, "
          "~ the belt turns, gR/gL gear (turns clockwise/counter-clockwise), r1/r2 wrench (repairs 1/2), XX pit, "
          "| and --- walls, L laser, P pusher, K crusher; (x,y): column x, row y from the top left")


def ansi(board: Board, robots: Sequence = (), labels: Sequence[str] | None = None, coords: bool = False) -> str:
    """The board as text: walls as | and ---, robots as number + facing (^ > v <), flags F1.., belts as arrows
    (express doubled, ~ rotating), gR/gL gears, r1/r2 wrenches, XX pits, L/P/K devices; one legend line per robot.

    `labels[i]` is added to robot i's line (who drives it: "you", an agent id); `coords` numbers the columns
    and rows (x across, y down, as in the robot lines)."""
    robots_at = {(r.x, r.y): (i, r) for i, r in enumerate(robots) if r.on_board and not r.eliminated}
    flag_at = {xy: k for k, xy in enumerate(board.flags, start=1)}
    devices = {}
    for marker, items in (("K", board.crushers), ("P", board.pushers), ("L", board.lasers)):
        devices.update({(d.x, d.y): marker for d in items})
    margin = "   " if coords else ""
    lines = [margin + " " + " ".join(f"{x:^3}" for x in range(board.width))] if coords else []
    for y in range(board.height):
        lines.append(margin + " " + " ".join("---" if board.wall(x, y, 0) else "   " for x in range(board.width)) + " ")
        row = [f"{y:>2} "] if coords else []
        for x in range(board.width):
            row.append("|" if board.wall(x, y, 3) else " ")
            row.append(_ansi_cell(board, x, y, robots_at, flag_at, devices))
        row.append("|" if board.wall(board.width - 1, y, 1) else " ")
        lines.append("".join(row))
    y = board.height - 1
    lines.append(margin + " " + " ".join("---" if board.wall(x, y, 2) else "   " for x in range(board.width)) + " ")
    flags = len(board.flags)
    for i, r in enumerate(robots):
        if r.eliminated:
            where = "eliminated"
        elif not r.on_board:
            where = "destroyed"
        else:
            where = f"at ({r.x},{r.y}) facing {'NESW'[r.facing]}"
        state = ", powered down" if r.powered_down else ""
        nxt = "all flags" if r.next_flag >= flags else f"next flag {r.next_flag + 1}/{flags}"
        who = f" ({labels[i]})" if labels is not None and i < len(labels) and labels[i] else ""
        lines.append(f"robot {i + 1}{who}: {where}, damage {r.damage}, lives {r.lives}, {nxt}{state}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------- pictures

@lru_cache(maxsize=16)
def _font(size: int):
    try:
        return ImageFont.load_default(size=max(6, size))
    except TypeError:  # Pillow before 10.1 has one fixed-size bitmap font
        return ImageFont.load_default()


def _centre(x: int, y: int, s: int) -> tuple[float, float]:
    return (x + 0.5) * s, (y + 0.5) * s


def _rotate(points, direction: int, cx: float, cy: float):
    """Points given for a north-pointing shape (relative to the centre), turned to face `direction`."""
    out = []
    for px, py in points:
        for _ in range(direction):
            px, py = -py, px  # a quarter turn clockwise on screen (y grows down)
        out.append((cx + px, cy + py))
    return out


def _arrow(draw, x, y, s, direction, colour, offset=0.0):
    """A chevron pointing toward `direction`, shifted `offset` squares along it."""
    cx, cy = _centre(x, y, s)
    o = offset * s
    pts = [(0, -0.32 * s - o), (0.28 * s, -0.02 * s - o), (0.14 * s, -0.02 * s - o), (0, -0.16 * s - o),
           (-0.14 * s, -0.02 * s - o), (-0.28 * s, -0.02 * s - o)]
    draw.polygon(_rotate(pts, direction, cx, cy), fill=colour)


def _text(draw, xy, text, size, colour, anchor="mm"):
    draw.text(xy, text, fill=colour, font=_font(size), anchor=anchor)


def _draw_square(draw, board: Board, x: int, y: int, s: int) -> None:
    x0, y0, x1, y1 = x * s, y * s, (x + 1) * s - 1, (y + 1) * s - 1
    code = int(board.floor[y, x])
    cx, cy = _centre(x, y, s)
    draw.rectangle([x0, y0, x1, y1], fill=FLOOR_RGB, outline=GRID_RGB)
    if code == PIT:
        draw.rectangle([x0, y0, x1, y1], fill=PIT_RGB)
        m = s * 0.18
        draw.rectangle([x0 + m, y0 + m, x1 - m, y1 - m], fill=PIT_INNER_RGB)
    elif code in (BELT, EXPRESS):
        d = int(board.belt_dir[y, x])
        fill, arrow = (BELT_RGB, BELT_ARROW_RGB) if code == BELT else (EXPRESS_RGB, EXPRESS_ARROW_RGB)
        draw.rectangle([x0 + 1, y0 + 1, x1 - 1, y1 - 1], fill=fill)
        if board.rotating[y, x]:
            r = 0.42 * s
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=ROTATING_RGB, width=max(1, s // 14))
        if code == BELT:
            _arrow(draw, x, y, s, d, arrow, offset=-0.12)
        else:  # two chevrons: an express belt moves twice as far
            _arrow(draw, x, y, s, d, arrow, offset=0.02)
            _arrow(draw, x, y, s, d, arrow, offset=-0.26)
    elif code in (GEAR_CW, GEAR_CCW):
        r = 0.40 * s
        fill = GEAR_CW_RGB if code == GEAR_CW else GEAR_CCW_RGB
        for k in range(8):  # teeth
            a = k * math.pi / 4
            tx, ty = cx + math.cos(a) * r, cy + math.sin(a) * r
            t = 0.07 * s
            draw.rectangle([tx - t, ty - t, tx + t, ty + t], fill=fill)
        r2 = 0.36 * s
        draw.ellipse([cx - r2, cy - r2, cx + r2, cy + r2], fill=fill)
        ra = 0.22 * s
        draw.arc([cx - ra, cy - ra, cx + ra, cy + ra], start=-150, end=150, fill=GEAR_ARROW_RGB, width=max(1, s // 12))
        # Arrowhead at the end the gear turns toward: PIL's angles grow clockwise on screen.
        theta = math.radians(150 if code == GEAR_CW else -150)
        sign = 1 if code == GEAR_CW else -1
        px, py = cx + ra * math.cos(theta), cy + ra * math.sin(theta)
        tx, ty = -math.sin(theta) * sign, math.cos(theta) * sign  # unit tangent in the turning direction
        nx, ny = math.cos(theta), math.sin(theta)
        h = 0.14 * s
        draw.polygon([(px + tx * h, py + ty * h), (px + nx * h * 0.7, py + ny * h * 0.7),
                      (px - nx * h * 0.7, py - ny * h * 0.7)], fill=GEAR_ARROW_RGB)
    elif code in (REPAIR, REPAIR2):
        m = 0.14 * s
        draw.rounded_rectangle([x0 + m, y0 + m, x1 - m, y1 - m], radius=s * 0.12, fill=REPAIR_RGB)
        arm, w = 0.22 * s, max(1, s // 10)
        offsets = (0.0,) if code == REPAIR else (-0.13 * s, 0.13 * s)
        for ox in offsets:
            a = arm if code == REPAIR else arm * 0.6
            draw.line([(cx + ox - a, cy), (cx + ox + a, cy)], fill=REPAIR_MARK_RGB, width=w)
            draw.line([(cx + ox, cy - a), (cx + ox, cy + a)], fill=REPAIR_MARK_RGB, width=w)


def _side_box(x: int, y: int, s: int, side: int, depth: float) -> list[float]:
    """The rectangle of depth `depth` (squares) along one side of square (x, y), inside the square."""
    x0, y0, x1, y1 = x * s, y * s, (x + 1) * s - 1, (y + 1) * s - 1
    t = depth * s
    return [[x0, y0, x1, y0 + t], [x1 - t, y0, x1, y1], [x0, y1 - t, x1, y1], [x0, y0, x0 + t, y1]][side]


def _draw_walls(draw, board: Board, s: int) -> None:
    # A wall is a bar straddling the line between two squares; a mirrored wall paints the same bar from both sides.
    t = max(3, s // 7)
    for y in range(board.height):
        for x in range(board.width):
            for side in range(4):
                if not board.wall(x, y, side):
                    continue
                x0, y0, x1, y1 = x * s, y * s, (x + 1) * s, (y + 1) * s
                box = [(x0 - 1, y0 - t // 2, x1, y0 + t // 2), (x1 - t // 2, y0 - 1, x1 + t // 2, y1),
                       (x0 - 1, y1 - t // 2, x1, y1 + t // 2), (x0 - t // 2, y0 - 1, x0 + t // 2, y1)][side]
                draw.rectangle(box, fill=WALL_RGB, outline=WALL_EDGE_RGB)


def _beam_end(board: Board, x: int, y: int, d: int, occupied: set) -> tuple[int, int]:
    """The last square a beam from (x, y) toward d reaches: a robot, a wall or the board edge stops it."""
    while (x, y) not in occupied and not board.wall(x, y, d):
        nx, ny = x + DX[d], y + DY[d]
        if not board.in_bounds(nx, ny):
            break
        x, y = nx, ny
    return x, y


def _draw_devices(draw, board: Board, s: int, occupied: set) -> None:
    small = int(s * 0.32)
    for laser in board.lasers:
        back = (laser.direction + 2) % 4
        ex, ey = _beam_end(board, laser.x, laser.y, laser.direction, occupied)
        sx, sy = _centre(laser.x, laser.y, s)
        tx, ty = _centre(ex, ey, s)
        # The beam runs from the mount (back of the square) to the far edge of its last square.
        sx -= DX[laser.direction] * 0.4 * s
        sy -= DY[laser.direction] * 0.4 * s
        if (ex, ey) not in occupied:
            tx += DX[laser.direction] * 0.5 * s
            ty += DY[laser.direction] * 0.5 * s
        gap = 0.12 * s
        for k in range(laser.beams):
            o = (k - (laser.beams - 1) / 2) * gap
            ox, oy = -DY[laser.direction] * o, DX[laser.direction] * o  # perpendicular offset
            draw.line([(sx + ox, sy + oy), (tx + ox, ty + oy)], fill=LASER_BEAM_RGB, width=max(1, s // 14))
        box = _side_box(laser.x, laser.y, s, back, 0.2)
        draw.rectangle(box, fill=LASER_MOUNT_RGB)
    for p in board.pushers:
        back = (p.direction + 2) % 4
        draw.rectangle(_side_box(p.x, p.y, s, back, 0.22), fill=PUSHER_RGB)
        cx, cy = _centre(p.x, p.y, s)
        label = (cx + DX[p.direction] * 0.2 * s, cy + DY[p.direction] * 0.2 * s)
        _text(draw, label, "".join(map(str, sorted(p.registers))), int(s * 0.26), TEXT_RGB)
        _arrow(draw, p.x, p.y, s, p.direction, PUSHER_RGB, offset=-0.3)
    for c in board.crushers:
        x0, y0 = c.x * s, c.y * s
        for top in (True, False):
            yy = y0 + (0.08 * s if top else 0.72 * s)
            draw.rectangle([x0 + 0.08 * s, yy, x0 + 0.92 * s, yy + 0.2 * s], fill=CRUSHER_RGB)
        _text(draw, _centre(c.x, c.y, s), "K" + "".join(map(str, sorted(c.registers))), small, TEXT_RGB)


def _draw_marks(draw, board: Board, s: int) -> None:
    for k, start in enumerate(board.starts, start=1):
        x0, y0 = start.x * s, start.y * s
        m = 0.08 * s
        draw.rectangle([x0 + m, y0 + m, x0 + s - 1 - m, y0 + s - 1 - m], outline=START_RGB, width=max(1, s // 20))
        _text(draw, (x0 + 0.2 * s, y0 + 0.22 * s), str(k), int(s * 0.3), START_RGB)
    for k, (x, y) in enumerate(board.flags, start=1):
        x0, y0 = x * s, y * s
        pole = x0 + 0.28 * s
        draw.line([(pole, y0 + 0.12 * s), (pole, y0 + 0.88 * s)], fill=FLAG_POLE_RGB, width=max(1, s // 16))
        draw.polygon([(pole, y0 + 0.12 * s), (x0 + 0.86 * s, y0 + 0.32 * s), (pole, y0 + 0.56 * s)],
                     fill=FLAG_RGB, outline=FLAG_POLE_RGB)
        # The flag's number large, black on a white disc below the pennant: readable at the default scale.
        cx, cy, rr = x0 + 0.66 * s, y0 + 0.7 * s, 0.24 * s
        draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=FLAG_NUMBER_RGB, outline=FLAG_POLE_RGB)
        _text(draw, (cx, cy), str(k), int(s * 0.4), TEXT_RGB)


def _draw_robots(draw, robots: Sequence, s: int) -> None:
    for i, r in enumerate(robots):
        if not r.on_board or r.eliminated:
            continue
        cx, cy = _centre(r.x, r.y, s)
        colour = ROBOT_COLOURS[i % len(ROBOT_COLOURS)]
        body = [(0, -0.42 * s), (0.36 * s, 0.34 * s), (0, 0.2 * s), (-0.36 * s, 0.34 * s)]
        draw.polygon(_rotate(body, r.facing, cx, cy), fill=colour, outline=TEXT_RGB)
        if r.powered_down:
            rr = 0.45 * s
            draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], outline=TEXT_RGB, width=max(1, s // 16))
        _text(draw, (cx, cy), str(i + 1), int(s * 0.34), TEXT_RGB)


def rgb_array(board: Board, robots: Sequence = (), shots: Sequence = (), scale: int = 32) -> np.ndarray:
    """The board drawn as uint8 [H*scale, W*scale, 3]: floor elements, walls, devices with beams, flags (numbered),
    starts, robots (coloured arrows with their number, a ring when powered down) and shots as red lines."""
    if not isinstance(scale, (int, np.integer)) or scale < 8:
        raise ValueError(f"scale must be an integer >= 8, got {scale!r}")
    s = int(scale)
    image = Image.new("RGB", (board.width * s, board.height * s), FLOOR_RGB)
    draw = ImageDraw.Draw(image)
    for y in range(board.height):
        for x in range(board.width):
            _draw_square(draw, board, x, y, s)
    occupied = {(r.x, r.y) for r in robots if r.on_board and not r.eliminated}
    _draw_devices(draw, board, s, occupied)
    _draw_walls(draw, board, s)
    _draw_marks(draw, board, s)
    _draw_robots(draw, robots, s)
    for shot in shots:
        a, b = _centre(shot.x0, shot.y0, s), _centre(shot.x1, shot.y1, s)
        draw.line([a, b], fill=SHOT_RGB, width=max(2, s // 10))
        rr = 0.12 * s
        draw.ellipse([b[0] - rr, b[1] - rr, b[0] + rr, b[1] + rr], fill=SHOT_RGB)
    return np.asarray(image, dtype=np.uint8).copy()


def with_caption(picture: np.ndarray, text: str, height: int = 24) -> np.ndarray:
    """The picture with a white strip of `height` pixels on top holding `text` (for replay frames); the font
    shrinks to fit the width, down to a legible minimum (then the end of the text is cut)."""
    h, w, _ = picture.shape
    image = Image.new("RGB", (w, h + height), (255, 255, 255))
    image.paste(Image.fromarray(picture), (0, height))
    size = int(height * 0.6)
    while size > 8 and _font(size).getlength(text) > w - 8:
        size -= 1
    ImageDraw.Draw(image).text((4, height // 2), text, fill=TEXT_RGB, font=_font(size), anchor="lm")
    return np.asarray(image, dtype=np.uint8).copy()


def with_legend(picture: np.ndarray, labels: Sequence[str], height: int = 24) -> np.ndarray:
    """The picture with a white strip below naming who drives each robot: robot i's colour, its number and
    `labels[i]` (e.g. "you", "roborally/greedy"), side by side (the font shrinks to fit the width)."""
    h, w, _ = picture.shape
    image = Image.new("RGB", (w, h + height), (255, 255, 255))
    image.paste(Image.fromarray(picture), (0, 0))
    draw = ImageDraw.Draw(image)
    texts = [f"{i + 1} {label}" for i, label in enumerate(labels)]
    box = height - 8
    size = int(height * 0.6)
    while size > 8 and sum(_font(size).getlength(t) + box + 16 for t in texts) > w - 8:
        size -= 1
    x = 4
    for i, text in enumerate(texts):
        colour = ROBOT_COLOURS[i % len(ROBOT_COLOURS)]
        draw.rectangle([x, h + 4, x + box, h + 4 + box], fill=colour, outline=TEXT_RGB)
        x += box + 4
        draw.text((x, h + height // 2), text, fill=TEXT_RGB, font=_font(size), anchor="lm")
        x += int(_font(size).getlength(text)) + 12
    return np.asarray(image, dtype=np.uint8).copy()


def write_gif(frames: Sequence[np.ndarray], path: str, ms_per_frame: int = 400) -> None:
    """Write frames (uint8 [h, w, 3], all one size) as an animated GIF that loops.

    Pillow merges a frame identical to the one before into it (their durations add up); caption frames
    (`with_caption`) to keep every step visible.
    """
    if len(frames) == 0:
        raise ValueError("write_gif needs at least one frame")
    shapes = {np.asarray(f).shape for f in frames}
    if len(shapes) != 1:
        raise ValueError(f"all frames must have one shape, got {sorted(shapes)}")
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in frames]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=int(ms_per_frame), loop=0)
