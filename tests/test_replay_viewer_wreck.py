"""The replay window on the Wall Demolition (a wreck of pieces and parts), driven by input.

Issue 18: impacts between two parts of one wreck are filtered out of the log (a toggle shows
them); a dramatic moment chosen from its list (click, key) is shown at its own frame with its
line highlighted and its bodies ringed; the slider's frame follows the thumb while it is
dragged. Mouse input goes through the window's own input device (the X pointer moved with
``win.movePointer``, the button pressed on the window's GraphicsWindowInputDevice), so
DirectGUI's widgets see it as they see a player's mouse.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

from sandbox.app.headless import run_scene
from sandbox.engine.playback import replay_assets
from sandbox.engine.replay import load_replay
from sandbox.engine.replay_index import is_wreck_impact, wreck_of

pytestmark = pytest.mark.window
W, H = 480, 320


@pytest.fixture(scope="module")
def viewer(window_display, tmp_path_factory):
    from sandbox.app.replay_viewer import ReplayViewer

    out = tmp_path_factory.mktemp("wd")
    res = run_scene(REPO / "scenes" / "wall_demolition.toml", out_dir=out, png=False)
    replay = load_replay(res.replay_path)
    v = ReplayViewer(replay, replay_assets(replay), width=W, height=H, shadows=False)
    v.out_dir = out
    try:
        yield v
    finally:
        v.close()


def test_wreck_of_names_the_first_body():
    assert [wreck_of(k) for k in ("wall", "wall#2", "wall~89", "wall#2#3", "#3", "w~x")] == \
        ["wall", "wall", "wall", "wall", "#3", "w~x"]
    hit = {"type": "impact", "body_a": "wall~4", "body_b": "wall#1"}
    assert is_wreck_impact(hit)
    assert not is_wreck_impact({**hit, "body_b": "reale"})
    assert not is_wreck_impact({**hit, "type": "damage"})


def _send(v, key, steps=2):
    v.base.messenger.send(key)
    v.step(steps)


def _to_px(v, node, point=(0, 0, 0)):
    """Window pixel of a point given in ``node``'s frame (a widget)."""
    p = v.base.render2d.get_relative_point(node, point)
    return int(round((p[0] + 1) / 2 * W)), int(round((1 - p[2]) / 2 * H))


def _press(v, px, steps=2):
    from panda3d.core import MouseButton

    v.base.win.movePointer(0, *px)
    v.step(1)
    v.base.win.get_input_device(0).button_down(MouseButton.one())
    v.step(steps)


def _release(v, steps=2):
    from panda3d.core import MouseButton

    v.base.win.get_input_device(0).button_up(MouseButton.one())
    v.step(steps)


def _log(v):
    return [t.getText() for t in v.log_texts if t.getText()]


def test_wreck_impacts_are_filtered_and_toggled(viewer):
    pb = viewer.playback
    _send(viewer, "end")
    wreck = [e for e in pb.events() if is_wreck_impact(e)]
    others = [e for e in pb.events() if e["type"] == "impact" and not is_wreck_impact(e)]
    assert len(wreck) > 50 and others  # rubble settling, and real hits (Reale, the ground)
    assert not viewer.show_wreck_impacts
    shown = pb.log_events(wreck_impacts=False)
    assert not any(is_wreck_impact(e) for e in shown)
    texts = _log(viewer)
    assert texts and all(e["text"][:40] not in " ".join(texts) for e in wreck[-5:])
    assert "hidden" in viewer.wreck_button["text"]
    # the log's header button (clicked with the mouse) shows them
    fs = viewer.wreck_button.guiItem.get_frame()  # (left, right, bottom, top)
    _press(viewer, _to_px(viewer, viewer.wreck_button,
                          ((fs[0] + fs[1]) / 2, 0, (fs[2] + fs[3]) / 2)))
    _release(viewer)
    assert viewer.show_wreck_impacts and "shown" in viewer.wreck_button["text"]
    full = pb.log_events(wreck_impacts=True)
    assert sum(map(is_wreck_impact, full)) == len(wreck)
    assert [t for t in _log(viewer)] == [_line(e) for e in full[-len(viewer.log_texts):]]
    _send(viewer, "i")  # and the key hides them again
    assert not viewer.show_wreck_impacts
    # hidden, the rest of the parts' lines are grouped per body (issue 31 item 7)
    from sandbox.app.log_groups import group_events

    grouped = group_events(shown)
    assert _log(viewer) == [_line(e) for e in grouped[-len(viewer.log_texts):]]
    assert len(grouped) < len(shown)
    assert not [t for t in _log(viewer) if " part " in t and "Knocked Back" in t]
    # n / p skip the hidden impacts: every stop is the frame of an event the log shows
    from sandbox.engine.playback import STORY_EVENTS

    idx = pb.index
    story = [(e, int(f)) for e, f in zip(pb.replay.events, idx.event_frames, strict=True)
             if e["type"] in STORY_EVENTS]
    kept = sorted({f for e, f in story if not is_wreck_impact(e)})
    every = sorted({f for _, f in story})
    assert set(kept) < set(every)  # some frames hold nothing but rubble settling
    pb.seek(0)
    stops = []
    while pb.next_event(wreck_impacts=False) not in stops:
        stops.append(pb.frame)
    assert stops == kept[1:] if kept[0] == 0 else stops == kept
    _send(viewer, "home")
    _send(viewer, "n")
    assert pb.frame == stops[0]


def _line(e):
    text = f"{float(e.get('time', 0)):6.3f}  {e.get('text', '')}"
    return text if len(text) <= 60 else text[:57].rstrip() + "..."


def test_a_clicked_moment_is_shown_at_its_frame_and_highlighted(viewer, tmp_path):
    pb = viewer.playback
    _send(viewer, "home")
    plain = viewer.screenshot()
    # the listed moment whose bodies are on the table at its frame, with a distinct frame
    pick = next(i for i, m in enumerate(viewer.moments)
                if m.frame > 0 and any(k in pb.replay.poses_at(m.frame) for k in m.bodies))
    m = viewer.moments[pick]
    line = viewer.moment_lines[pick]
    fs = line["frameSize"]
    _press(viewer, _to_px(viewer, line, ((fs[0] + fs[1]) / 2, 0, (fs[2] + fs[3]) / 2)))
    _release(viewer)
    assert pb.frame == m.frame and not pb.playing
    assert viewer.chosen_moment == pick
    assert tuple(line["frameColor"]) != (0, 0, 0, 0)
    assert all(tuple(o["frameColor"]) == (0, 0, 0, 0)
               for i, o in enumerate(viewer.moment_lines) if i != pick)
    keys = viewer.moment_bodies()
    assert keys and set(keys) <= set(pb.poses())
    rings = [n for n in viewer.mark_nodes if not n.is_hidden()]
    assert len(rings) == len(keys)
    pos, _ = pb.poses()[keys[0]]
    np.testing.assert_allclose(np.array(rings[0].get_pos()), pos, atol=1e-4)
    shot = viewer.screenshot()
    from PIL import Image

    Image.fromarray(shot).save(viewer.out_dir / "moment.png")
    magenta = (shot[..., 0] > 200) & (shot[..., 1] < 90) & (shot[..., 2] > 180)
    plain_magenta = (plain[..., 0] > 200) & (plain[..., 1] < 90) & (plain[..., 2] > 180)
    assert magenta.sum() > plain_magenta.sum() + 30  # the rings are drawn
    # every listed moment by its number key lands on its own frame, highlighted
    for n, mom in enumerate(viewer.moments, 1):
        _send(viewer, str(n), steps=1)
        assert pb.frame == mom.frame and viewer.chosen_moment == n - 1
    # m walks through the listed moments in time, those sharing a frame included
    _send(viewer, "home")
    seen = []
    for _ in viewer.moments:
        _send(viewer, "m", steps=1)
        seen.append(viewer.chosen_moment)
        assert pb.frame == viewer.moments[seen[-1]].frame
    assert sorted(seen) == list(range(len(viewer.moments)))
    # leaving the moment's clip lets it go: no highlight, no rings
    _send(viewer, "home")
    assert viewer.chosen_moment is None
    assert all(n.is_hidden() for n in viewer.mark_nodes)
    assert all(tuple(o["frameColor"]) == (0, 0, 0, 0) for o in viewer.moment_lines)


def test_slider_drag_seeks_while_dragging(viewer):
    pb = viewer.playback
    _send(viewer, "home")
    s = viewer.slider
    track = s.guiItem.get_frame()
    thumb = s.thumb.guiItem.get_frame()
    half = (thumb[1] - thumb[0]) / 2
    lo, hi = track[0] + half, track[1] - half
    _press(viewer, _to_px(viewer, s.thumb))
    assert viewer._slider_dragged()
    seen = []
    for frac in (0.2, 0.45, 0.7, 0.95, 0.5):
        viewer.base.win.movePointer(0, *_to_px(viewer, s, (lo + frac * (hi - lo), 0, 0)))
        viewer.step(1)  # one frame: the frame shown already follows the thumb
        seen.append(pb.frame)
        assert abs(pb.frame - frac * (pb.frames - 1)) <= 1.5, (frac, pb.frame)
    _release(viewer)
    assert abs(pb.frame - 0.5 * (pb.frames - 1)) <= 1.5 and not viewer._slider_dragged()
    assert seen == sorted(seen[:4]) + [seen[4]] and len(set(seen)) == 5
