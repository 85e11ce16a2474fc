"""What the window draws over the table each time something changed: the game's own markers
(its home mode's ``draw_home``: BrikWars' Escapade edges and zones and Field Hazards, Micro
Brick War's legal squares), smoke, the players' rulers and templates, a ring
under the selection, and the current input mode's markers, label and preview (:mod:`.mode`).

A mixin of :class:`~sandbox.app.table.app.TabletopApp`; rendering reads the game, never
changes it.
"""

from __future__ import annotations

import math

import numpy as np
from panda3d.core import LPoint3, TextNode

from ...engine.actions import action_dict
from ...render import geometry
from ...render.view import Marker
from ..table_hands import tools_markers
from .hud import LABEL_TOP_Y
from .mode import Drawn


class OverlaysMixin:
    """The overlays' part of the window (see the module text)."""

    def _draw_overlays(self) -> None:
        self.overlays_dirty = False
        self.markers_np.node().remove_all_children()
        s = self.session
        inp = self.input
        d = Drawn()
        # the game's own markers in every mode (its home mode's: an Escapade's edges and zones,
        # Field Hazards, a board game's legal squares)
        inp.home.draw_home(d)
        d.markers.extend(self._unit_markers())
        own, tool_labels = tools_markers(s, s.current_player)  # rulers, templates, done, carry
        d.markers.extend(own)
        self._draw_tool_labels(tool_labels)
        for smoke in s.smoke_fields():
            d.markers.append(Marker.ring((smoke.centre[0], smoke.centre[1], 0.02), smoke.radius,
                                         colour=(0.75, 0.75, 0.78, 0.8), width=0.2))
        inp.current.draw(d)
        if self.odds_lines and self.odds_action is not None:
            shown = inp.previewed_action()
            if shown is not None and action_dict(shown) == self.odds_action:
                d.preview = d.preview + self.odds_lines
        self.preview.setText("\n".join(d.preview))
        for marker in d.markers:
            geometry.attach_marker(self.markers_np, marker)
        self._place_label(d.label, d.label_at)

    def _draw_tool_labels(self, tool_labels) -> None:
        """Billboard labels of the players' rulers and templates ("m1: 6.00\"")."""
        self.tool_labels_np.node().remove_all_children()
        scale = max(0.35, self.rig.distance * 0.015)
        for text, at in tool_labels:
            tn = TextNode("tool-label")
            tn.set_text(text)
            tn.set_align(TextNode.ACenter)
            tn.set_text_color(1, 1, 1, 1)
            tn.set_shadow(0.06, 0.06)
            tn.set_shadow_color(0, 0, 0, 1)
            node = self.tool_labels_np.attach_new_node(tn)
            node.set_billboard_point_eye()
            node.set_pos(LPoint3(*map(float, at)))
            node.set_scale(scale)

    def _place_label(self, label: str, label_at) -> None:
        self.ruler_label.node().set_text(label)
        if label_at is None:
            return
        # not over the turn banner and the Strategy pile line: a label that would show in
        # the window's top band comes down towards the table
        for _ in range(8):
            xy = self.world_to_screen(label_at)
            if xy is None or xy[1] < LABEL_TOP_Y or label_at[2] <= 0.3:
                break
            label_at = np.array([label_at[0], label_at[1], max(0.3, label_at[2] * 0.6)])
        self.ruler_label.set_pos(LPoint3(*map(float, label_at)))
        self.ruler_label.set_scale(max(0.35, self.rig.distance * 0.018))

    def _unit_markers(self) -> list[Marker]:
        """A clear ring under the selected body; in top view a ring round every unit too
        (green: the current player's, red: another's), so units read as shapes from above."""
        s = self.session
        out: list[Marker] = []
        top = self.rig.pitch > 89.0
        for key, st in s.bodies.items():
            if key not in s.world.bodies or (st.damage.destroyed and key != self.selected):
                continue
            if key != self.selected and not (top and st.kind == "unit"):
                continue
            lo, hi = s.bounds(key)
            c = s.footprint_centre(key)
            r = 0.5 * math.hypot(hi[0] - lo[0], hi[1] - lo[1]) + 0.25
            if key == self.selected:
                out.append(Marker.ring((c[0], c[1], max(lo[2], 0.0) + 0.04), r + 0.1,
                                       colour=(1.0, 0.9, 0.2, 1.0), width=0.12))
            else:
                mine = st.owner == s.current_player
                out.append(Marker.ring((c[0], c[1], max(lo[2], 0.0) + 0.04), r,
                                       colour=(0.3, 1.0, 0.4, 0.9) if mine
                                       else (1.0, 0.3, 0.25, 0.9),
                                       width=0.1))
        return out
