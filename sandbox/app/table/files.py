"""The window's files and the game's end: save slots, saves and loads, quitting with an
autosave, the replay and the battle report of the game, and the odds of a previewed action
(a mixin of :class:`~sandbox.app.table.app.TabletopApp`, split from it to keep each module of
the window under 1,000 lines)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from ...core.errors import SandboxError
from ...engine.actions import action_dict
from ...engine.game import Game as GameSession
from ...engine.replay import save_replay
from ..table_hands import SlotDialog, slot_name
from .hud import shown_path

#: Seeds the window's ``O`` runs for the odds of a previewed action.
ODDS_SEEDS = 50

class FilesMixin:
    """Saves, loads, slots, quitting, the replay, the report and the odds (needs the
    attributes of :class:`~sandbox.app.table.app.TabletopApp`)."""

    def save_slot(self, name: str) -> Path | None:
        """Save the game as the named slot ``<slots_dir>/<name>.save.json`` (F6)."""
        slot = slot_name(name)
        if not slot:
            self.flash("Save as: type a name for the slot", error=True)
            return None
        try:
            self.slots_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.flash(f"Save failed: cannot make {self.slots_dir}: {exc}", error=True)
            return None
        return self.save(self.slots_dir / f"{slot}.save.json")

    def open_slots(self) -> None:
        """The saved-games dialog (F7): the named slots, the quick save and the autosave."""
        if self.slot_dialog is not None:
            self.slot_dialog.close()
            return
        self.slot_dialog = SlotDialog(self, self.slots_dir,
                                      extra=[self.save_path, self.autosave_path()])

    @property
    def unsaved(self) -> int:
        """Actions played since the game was opened, saved or loaded (0: nothing to lose)."""
        if self.net is not None:
            return 0  # online, the server holds the game
        now, saved = list(self.session.actions), self._saved_actions
        if self._saved_session is not self.session:
            return len(now)
        if now[:len(saved)] == saved:
            return len(now) - len(saved)
        return max(1, abs(len(now) - len(saved)))  # undone past the save, or replaced

    def _mark_saved(self) -> None:
        self._saved_session = self.session
        self._saved_actions = list(self.session.actions)

    def _confirm(self, what: str, question: str) -> bool:
        """Whether ``what`` (a key) was pressed again right after its question was asked; else
        asks ``question`` and returns False."""
        now = self.message_clock()
        if self._asked == what and now < self._asked_until:
            self._asked = None
            return True
        self._asked, self._asked_until = what, now + 8.0
        self.flash(question, 8.0, error=True)
        return False

    def autosave_path(self) -> Path:
        """Where quitting with unsaved play autosaves: ``<save name>.autosave.json``."""
        name = self.save_path.name
        stem = name[:-len(".save.json")] if name.endswith(".save.json") else self.save_path.stem
        return self.save_path.with_name(stem + ".autosave.json")

    def quit(self) -> None:
        """Q: close the window (the interactive loop ends).
        With unsaved play, the game is autosaved and the first press asks; a second quits."""
        n = self.unsaved
        if n and not self.busy:
            if not self._confirm("quit", ""):
                try:
                    out = self.session.save(self.autosave_path())
                    where = f"autosaved to {shown_path(out)}"
                except SandboxError as exc:
                    where = f"autosave failed: {exc}"
                self.flash(f"{n} unsaved action(s) ({where}): Q again to quit, F5 to save", 8.0,
                           error=True)
                return
        self.quit_requested = True
        self.on_quit()

    def replay_path(self) -> Path:
        """Where F8 writes this game's replay: beside the save, ``<save name>.replay``."""
        name = self.save_path.name
        stem = name[:-len(".save.json")] if name.endswith(".save.json") else self.save_path.stem
        return self.save_path.with_name(stem + ".replay")

    def replay_of_game(self):
        """The game's :class:`~sandbox.engine.replay.Replay` so far, its ``meta.scene_dir`` the
        scene's folder (or pack), so the viewer and the report rebuild the models wherever the
        replay is written."""
        g = self.session
        rp = g.replay()
        rp.meta["scene_dir"] = str(Path(g.scene_origin or g.base_dir).resolve())
        return rp

    def _write_replay(self) -> Path | None:
        """Write the game's replay so far to :meth:`replay_path` (None, with the reason shown,
        while physics plays out or when it cannot be written)."""
        if self.busy:
            self.flash("Wait: physics is still playing out", error=True)
            return None
        try:
            return save_replay(self.replay_of_game(), self.replay_path())
        except (OSError, SandboxError) as exc:
            self.flash(f"The replay could not be written: {exc}", error=True)
            return None

    def open_report(self) -> None:
        """Ctrl+R: write the game's replay (:meth:`replay_path`) and its battle report beside
        it (``sandbox report``, in its own process: ``<save name>.report/index.html``)."""
        path = self._write_replay()
        if path is None:
            return
        out = path.with_suffix(".report")
        self.launch([sys.executable, "-m", "sandbox", "report", str(path), "--out", str(out)])
        self.flash(f"The battle report is being written to {shown_path(out)} (index.html)",
                   ok=True)

    def open_replay(self) -> None:
        """F8: write the game's replay so far (the whole game once it is over) and open it in
        the replay viewer, a window of its own (``sandbox replay``)."""
        path = self._write_replay()
        if path is None:
            return
        self.launch([sys.executable, "-m", "sandbox", "replay", str(path)])
        self.flash(f"Replay written to {shown_path(path)}; the viewer opens in its own window",
                   ok=True)

    def start_odds(self, action, seeds: int | None = None) -> None:
        """Run ``seeds`` (default :data:`ODDS_SEEDS`) games of ``action`` played now on local
        processes, in the background (:func:`sandbox.app.odds.action_odds`); the odds show
        beside the preview of the same action."""
        from .. import odds, odds_stats

        if self._odds_thread is not None and self._odds_thread.is_alive():
            self.flash("The odds of an action are still being run", error=True)
            return
        seeds = seeds or ODDS_SEEDS
        key = action_dict(action)
        self.odds_action = key
        self.odds_lines = [f"Odds: running {seeds} seeds..."]
        self.overlays_dirty = True

        def progress(done: int, total: int) -> None:
            if self.odds_action == key:
                self.odds_lines = [f"Odds: {done}/{total} seeds run..."]
                self.overlays_dirty = True

        def work() -> None:
            try:
                names = {k: st.name for k, st in self.session.bodies.items()}
                result = odds.action_odds(self.session, action, range(1, seeds + 1),
                                          progress=progress)
                lines = odds_stats.odds_lines(result, names=names)
            except Exception as exc:  # noqa: BLE001 - shown in the panel
                lines = [f"Odds failed: {exc}"]
            if self.odds_action == key:
                self.odds_lines = lines
                self.overlays_dirty = True

        self._odds_thread = threading.Thread(target=work, name="sandbox-odds", daemon=True)
        self._odds_thread.start()

    def wait_odds(self, timeout: float = 300.0) -> None:
        """Wait for the background odds run (tests)."""
        if self._odds_thread is not None:
            self._odds_thread.join(timeout)

    def save(self, path: str | Path | None = None) -> Path | None:
        """Save the game (F5). Returns the path, or None when busy or on failure."""
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return None
        target = Path(path) if path else self.save_path
        try:
            out = self.session.save(target)
        except OSError as exc:
            self.flash(f"Save failed (previous save kept): {exc}", error=True)
            return None
        self._mark_saved()
        self.flash(f"Saved to {shown_path(out)}", ok=True)
        return out

    def load(self, path: str | Path | None = None) -> None:
        """Load a save (F9): replays its log on the worker, then swaps the session in."""
        if self.busy:
            self.flash("Wait: physics is still playing out")
            return
        if self.net is not None:
            self.flash("Online: the server holds the game (its host restarts it from a save)")
            return
        if path is None and not self.save_path.is_file():
            self.flash(f"No quick save yet ({shown_path(self.save_path)}): F5 saves one, "
                       "F7 lists the saved games", error=True)
            return
        n = self.unsaved
        if n and path is None and not self._confirm(
                "load", f"F9 again to discard {n} unsaved action(s) and load "
                        f"{shown_path(self.save_path)} (F5 saves first)"):
            return
        target = Path(path) if path else self.save_path
        ldraw = self.session.ldrawdir
        self._loading = target
        self._after = "load"
        self.runner.start(lambda: GameSession.load(target, ldraw))

