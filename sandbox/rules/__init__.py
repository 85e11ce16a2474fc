"""BrikWars rules as pure functions and dataclasses: no pybullet, no panda3d.

The rules layer receives facts (who attacks with what, at what distance, behind what cover,
which dice came up) and returns outcomes (hits, Damage, KnockBack inches, Fire). Every die
comes from a :class:`sandbox.core.dice.DiceStream` passed in, so each roll is recorded.

Modules
-------
stats    : UnitSpec (frozen) and BattleState (mutable), Effective Size, Specialties.
weapons  : Weapon stats by Weapon Size / XSize (8.1 table), Bastard Guns, hand-held categories,
           throwing arms, Payload checks.
power    : Power limits, Divert All Power, Teamwork, Turrets, Compensating (8.1).
attacks  : Action Rolls, Range, Target Size and cover, Arc Fire, Burst Fire (5.x, 8.3, 8.5).
damage   : Damage vs Armor, Deflection, cumulative damage, Size Damage, Explosion rings,
           KnockBack, Premature Detonation (8.1, 8.4).
fire     : Catching on Fire, Burning Rolls, the panic run (8.3).
gunnery  : Gunnery, Gunnery Support, Homing In, Controls, Interfere, Reload (8.3-8.5).
brigandine, brigandine_tables : Brigandine's combat (a second game, shared/rules/003): phases,
           initiative, fire rates, Skirmish, Man-to-Man, Fantasy Combat, Jousting; its tables
           as validated TOML data (data/brigandine/, a default set of this project's design).
"""

from .attacks import (
    UNSEEN_TARGET,
    ActionRoll,
    ArcTarget,
    AttackResult,
    FireResult,
    Modifier,
    action_roll,
    arc_attack_count,
    arc_damage_expression,
    auto_penalty,
    exposed_size_in,
    out_of_range_inches,
    out_of_range_modifier,
    resolve_arc_fire,
    resolve_attack,
    resolve_burst_fire,
    roll_damage,
    target_modifier,
    target_size_modifier,
)
from .damage import (
    ArmorOutcome,
    CumulativeDamage,
    ExplosionRing,
    KnockBack,
    Stability,
    attack_knockback,
    compare_damage_to_armor,
    damage_after_deflection,
    explosion_at,
    explosion_knockback_in,
    explosion_rings,
    explosive_power_in,
    premature_detonation,
    roll_armor,
    size_damage_in,
    size_knockback_in,
    stack_explosions,
)
from .fire import (
    BurningRoll,
    FireOutcome,
    apply_fire,
    burning_penalty,
    burning_roll,
    can_spread_fire_to,
    douse,
    fire_outcome,
    panic_run_in,
    stop_drop_and_roll,
)
from .gunnery import (
    ControlsLedger,
    HomingIn,
    WeaponState,
    attack_die,
    gunnery_support,
    interfere,
)
from .power import (
    PowerCheck,
    PowerReserve,
    Teamwork,
    TurretSize,
    TurretState,
    check_power,
    compensating_bonus_in,
    power_limit,
    teamwork,
)
from .stats import BattleState, Specialty, UnitKind, UnitSpec, effective_size, minifig
from .weapons import (
    BASTARD_GUNS,
    HandCategory,
    WeaponProfile,
    WeaponType,
    bastard_gun,
    check_payload,
    hand_held_category,
    throwing_arm,
    weapon_profile,
)

__all__ = [name for name in dir() if not name.startswith("_")]
