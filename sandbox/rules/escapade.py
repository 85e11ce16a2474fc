"""Escapades: a whole BrikWars chapter 13 battle, with the arithmetic done for the players.

The public face of the Escapade rules: everything is re-exported from the sibling modules:

- :mod:`.escapade_forces` — Unit Inches, deployment limits, underdogs, turn order (13.1).
- :mod:`.escapade_field` — table edges, the Stronghold, friendly edges, exits, deployment
  zones (13.1 Picking Sides, 13.2).
- :mod:`.escapade_deploy` — Tactical Advantage and the Deployment Rush (13.2).
- :mod:`.escapade_commander` — Strategy bricks, Reinforcements, Bombardment costs (13.2).
- :mod:`.escapade_victory` — Losing Battles and victory (13.3, 13.4).
- :mod:`.escapade_ledger` — :class:`EscapadeSpec` (the set-up) and :class:`EscapadeLedger`
  (the running battle a game loop drives turn by turn, with its log).

Pure Python: positions come in as ``(x, y)`` inches from the physics layer; nothing here calls
physics or draws.
"""

from __future__ import annotations

from .escapade_commander import (
    big_drop_height_inches,
    bombardment_cost,
    bombardment_use,
    check_drop_zone,
    kill_earns_strategy,
    reinforcement_cost,
)
from .escapade_deploy import (
    TacticalAdvantage,
    TacticalRoll,
    can_rush,
    can_swap,
    rush_turn,
    tactical_advantage,
    top_command_specialist,
)
from .escapade_field import (
    Area,
    DeploymentCheck,
    Edge,
    EdgePlan,
    EdgeStretch,
    ExitFacts,
    ExitKind,
    ExitOutcome,
    Table,
    check_deployment,
    formation_area,
    friendly_stretches,
    is_safe_entry_point,
    pick_defenders_edge,
    rect_area,
    resolve_exit,
)
from .escapade_forces import (
    EscapadeKind,
    ForceSpec,
    ForceUnit,
    LimitViolation,
    Role,
    Side,
    UnderdogResult,
    alliance_key,
    force_unit_inches,
    limit_violations,
    reference_inches,
    side_totals,
    turn_order,
    underdogs,
    unit_inches,
    validate_forces,
)
from .escapade_ledger import (
    EscapadeLedger,
    EscapadeSpec,
    UnitStatus,
    roll_tactical_advantage,
)
from .escapade_victory import (
    ForceStanding,
    VictoryOutcome,
    VictoryStatus,
    campaign_exits,
    is_defeated,
    may_fight_losing_battle,
    must_fight_losing_battle,
    victory_status,
)

__all__ = [
    # specs and state
    "EscapadeSpec",
    "EscapadeLedger",
    "roll_tactical_advantage",
    "UnitStatus",
    # forces (13.1)
    "Side",
    "Role",
    "EscapadeKind",
    "ForceUnit",
    "ForceSpec",
    "LimitViolation",
    "UnderdogResult",
    "unit_inches",
    "force_unit_inches",
    "reference_inches",
    "limit_violations",
    "validate_forces",
    "side_totals",
    "underdogs",
    "turn_order",
    "alliance_key",
    # field (13.1, 13.2)
    "Edge",
    "Table",
    "Area",
    "EdgeStretch",
    "EdgePlan",
    "ExitFacts",
    "ExitKind",
    "ExitOutcome",
    "DeploymentCheck",
    "rect_area",
    "formation_area",
    "pick_defenders_edge",
    "friendly_stretches",
    "resolve_exit",
    "check_deployment",
    "is_safe_entry_point",
    # deployment (13.2)
    "TacticalRoll",
    "TacticalAdvantage",
    "top_command_specialist",
    "tactical_advantage",
    "can_swap",
    "can_rush",
    "rush_turn",
    # commander (13.2)
    "kill_earns_strategy",
    "reinforcement_cost",
    "bombardment_cost",
    "bombardment_use",
    "big_drop_height_inches",
    "check_drop_zone",
    # victory (13.3, 13.4)
    "ForceStanding",
    "VictoryOutcome",
    "VictoryStatus",
    "must_fight_losing_battle",
    "may_fight_losing_battle",
    "is_defeated",
    "victory_status",
    "campaign_exits",
]
