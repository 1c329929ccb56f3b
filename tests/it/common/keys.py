"""Types keys into an X display through the XTEST extension (libXtst), as a
person at the keyboard would: tests/it/common/display.rs, Display::type_keys.

usage: keys.py DISPLAY STEP...
  a word        typed character by character (letters, digits, space, !)
  <Name>        one key by its X keysym name: <Return>, <Escape>
  @SECONDS      a pause

The pointer is moved to the middle of the screen first: with no window
manager, keyboard focus follows it.
"""

import ctypes
import sys
import time

x11 = ctypes.CDLL("libX11.so.6")
xtst = ctypes.CDLL("libXtst.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
x11.XKeysymToKeycode.restype = ctypes.c_ubyte
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x11.XFlush.argtypes = [ctypes.c_void_p]
x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeMotionEvent.argtypes = [
    ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong,
]

NAMES = {" ": "space", "!": "exclam"}
HOLD = 0.04


def main(display_name, steps):
    display = x11.XOpenDisplay(display_name.encode())
    if not display:
        sys.exit(f"cannot open display {display_name}")

    def code(name):
        keycode = x11.XKeysymToKeycode(display, x11.XStringToKeysym(name.encode()))
        if keycode == 0:
            sys.exit(f"no key for {name!r}")
        return keycode

    def press(name, shift=False):
        if shift:
            xtst.XTestFakeKeyEvent(display, code("Shift_L"), 1, 0)
        xtst.XTestFakeKeyEvent(display, code(name), 1, 0)
        x11.XFlush(display)
        time.sleep(HOLD)
        xtst.XTestFakeKeyEvent(display, code(name), 0, 0)
        if shift:
            xtst.XTestFakeKeyEvent(display, code("Shift_L"), 0, 0)
        x11.XFlush(display)
        time.sleep(HOLD)

    xtst.XTestFakeMotionEvent(display, 0, 640, 360, 0)
    x11.XFlush(display)
    for step in steps:
        if step.startswith("@"):
            time.sleep(float(step[1:]))
        elif step.startswith("<") and step.endswith(">"):
            press(step[1:-1])
        else:
            for ch in step:
                press(NAMES.get(ch, ch), ch.isupper() or ch == "!")
    x11.XCloseDisplay(display)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
