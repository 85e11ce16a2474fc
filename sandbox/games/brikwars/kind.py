"""BrikWars as a game kind: its systems in hook order (BrikWars ch. 8 Weaponry, F Field
Hazards, 13 Escapades).

The order is part of the rules' sequencing: Bombardments land before Payloads in flight move
on, before Fires burn; Skirmish (Move and Attack) before Manning (Power, manned weapons) and
Close Combat; the Escapade (only with an ``[escapade]`` table) last. Physics impacts harm
bodies here because :class:`~.explosions.Blasts` listens to them (Collision Damage, 8.4).
"""

from __future__ import annotations

from ...engine.kinds import GameKind, register_game
from ...engine.scene import WEAPON_CHECKS, SceneSection, register_scene_section
from ...rules.collision import DamageState
from ...rules.weapons import WeaponType, bastard_gun, weapon_profile
from .bombardment import Bombardment
from .close_combat import CloseCombat, CloseCombatExpect
from .defences import Defences
from .escapade import EscapadeDriver
from .explosions import Blasts
from .hazard_scene import FieldEntry, HazardExpect
from .hazards import Hazards
from .manning import Manning
from .projectiles import FlightControl
from .scene_blast import VARIANT_NAMES, check_variants
from .scene_escapade import EscapadeSection
from .scene_flight import DropZone, ExplosiveBody, LandedNear, LauncherMount, MeleePayload
from .scene_manning import ManningExpect
from .skirmish import Skirmish
from .trap_scene import TrapEntry
from .traps import Traps

KIND = GameKind(
    "brikwars",
    systems=(Bombardment, Blasts, FlightControl, Hazards, Defences, Traps, Skirmish, Manning,
             CloseCombat, EscapadeDriver),
    body_condition=DamageState,
    description="BrikWars (ch. 8 Weaponry, F Field Hazards, 13 Escapades)",
    window="sandbox.games.brikwars.window")
register_game(KIND)


def _check_weapon(w) -> None:
    """A weapon entry names a row of the 8.1 table or a Bastard Gun; Explosive Variants only
    on Rockets and Explosives, and as many as its dice allow (8.4)."""
    for v in [w.variant, *w.variants]:
        if v not in VARIANT_NAMES:
            field = "variants" if v != w.variant else "variant"
            raise ValueError(f"{field}: {v!r} is not an Explosive Variant (have "
                             f"{', '.join(VARIANT_NAMES)})")
    prof = bastard_gun(w.bastard) if w.bastard is not None else weapon_profile(w.type, w.size)
    if w.variant != "explosive" or w.variants:
        if prof.weapon_type not in (WeaponType.ROCKET, WeaponType.EXPLOSIVE):
            raise ValueError(f"variant/variants: only Rockets and Explosives have Explosive "
                             f"Variants (8.4), not {prof.name}")
        check_variants(max(1, int(round(prof.size))), w.variant, w.variants)


def _check_launchers(spec) -> None:
    ids = {b.id for b in (*spec.creations, *spec.units, *spec.reserves)}
    for i, m in enumerate(spec.launchers):
        if m.creation is not None and m.creation not in ids:
            raise ValueError(f"launchers[{i}].creation {m.creation!r} is not the id of a "
                             "creation, unit or reserve")


if _check_weapon not in WEAPON_CHECKS:
    WEAPON_CHECKS.append(_check_weapon)
for _section in (
        SceneSection("launchers", list[LauncherMount], [], "Launchers and Cannons (8.4)",
                     check=_check_launchers),
        SceneSection("explosives", list[ExplosiveBody], [], "Explosive bodies (8.4)"),
        SceneSection("melee_payloads", list[MeleePayload], [], "melee Payloads (8.4)"),
        SceneSection("drop_zones", list[DropZone], [], "Bombardment drop zones (13.2)"),
        SceneSection("fields", list[FieldEntry], [], "Field Hazards (F.1)"),
        SceneSection("traps", list[TrapEntry], [], "Traps (BrikWars F.2)"),
        SceneSection("escapade", EscapadeSection | None, None, "an Escapade (BrikWars ch. 13)"),
        SceneSection("hazards", HazardExpect | None, None, expect=True),
        SceneSection("landed", list[LandedNear], [], "where Payloads end up", expect=True),
        SceneSection("close_combat", CloseCombatExpect | None, None,
                     "Parries, Shoves, Grabs (BrikWars 8.2)", expect=True),
        SceneSection("manning", ManningExpect | None, None, expect=True)):
    register_scene_section(_section)
