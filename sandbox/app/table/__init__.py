"""The tabletop window as a package: the window owner (:mod:`.app`), its HUD (:mod:`.hud`) and
overlays (:mod:`.overlays`), the one key map (:mod:`.keymap`), the input layer (:mod:`.input`),
the input modes every game has (:mod:`.mode`, :mod:`.modes_common`), and opening the window
first with a loading view (:mod:`.window`, :mod:`.launch`). Each game's own modes live in its
package (``sandbox/games/<game>/window.py``), named by its kind (``GameKind.window``).

Nothing is imported here, so a game's window modes can import :mod:`.mode` without the window.
"""
