"""Battle reports: a replay (or a saved game) as a page anyone can open.

``sandbox report REPLAY|SAVE --out DIR [--markdown]`` (:func:`build_report`): turn by turn who
did what with every die explained in words (:mod:`.story`), the replay's dramatic moments as
pictures and a map per turn (:mod:`.pictures`), casualties and the Outcome, and a 3D viewer
of the animated glTF (:mod:`sandbox.app.gltf_anim`) with the log in step (:mod:`.page`).
"""

from .build import ReportResult, build_report, load_source, report_files

__all__ = ["ReportResult", "build_report", "load_source", "report_files"]
