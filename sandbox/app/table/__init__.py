"""The tabletop window as a package: the window owner (:mod:`.app`), its HUD (:mod:`.hud`) and
overlays (:mod:`.overlays`), the one key map (:mod:`.keymap`), the input layer (:mod:`.input`),
the input modes (:mod:`.mode`, :mod:`.modes_common`, :mod:`.modes_brikwars`), and opening the
window first with a loading view (:mod:`.window`, :mod:`.launch`).

Nothing is imported here, so a game's own modes (``app/brigandine_input.py``) can import
:mod:`.mode` without the window.
"""
