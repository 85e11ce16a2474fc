"""Run by tests/test_net_window.py in its own process under Xvfb (one ShowBase per process):
the tabletop window joins a server as one seat; a headless client plays the other."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from pathlib import Path

from sandbox import open_game
from sandbox.app.table.app import TabletopApp
from sandbox.engine.actions import EndTurnAction, MoveAction
from sandbox.net import GameServer, HeadlessClient
from sandbox.net.window import NetLink


def main(scene: Path) -> None:
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def on(coro, timeout=120):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    game = open_game(scene)
    srv = GameServer(game, port=0, on_log=lambda s: None)
    on(srv.start())
    blue = HeadlessClient(srv.url, srv.token("Blue"), scene_dir=scene.parent, name="Blue")
    on(blue.connect())
    link = NetLink(srv.url, srv.token("Red"), scene_dir=scene.parent)
    app = TabletopApp(link.start(), 640, 480, title="net test")
    link.attach(app)

    def pump(pred, timeout=120.0):
        t0 = time.monotonic()
        while not pred():
            app.step()
            if time.monotonic() - t0 > timeout:
                raise TimeoutError("the window did not get there")
        app.wait_idle()

    report = {}
    app.step(2)
    report["status"] = app.status.getText()  # which seat this window is (issue 31 item 10)
    # the window's own actions go to the server and come back numbered
    app.submit(MoveAction(type="move", player="Red", unit="red1", to=(-1.5, 1.0)))
    pump(lambda: srv.all_confirmed >= 1)
    app.submit(EndTurnAction(type="end_turn", player="Red"))
    pump(lambda: srv.all_confirmed >= 2)
    # the other seat's move arrives and plays out here (physics simulated in this window)
    fut = asyncio.run_coroutine_threadsafe(blue.act(
        {"type": "move", "player": "Blue", "unit": "blue1", "to": [1.0, -2.0]}), loop)
    pump(lambda: fut.done() and srv.all_confirmed >= 3)
    report["remote_move"] = app.session.state_hash() == srv.hashes[3]
    report["blue_at"] = [round(v, 2) for v in app.session.world.pose("blue1")[0][:2]]
    # a refusal is shown, the game is unchanged
    app.submit(MoveAction(type="move", player="Red", unit="red1", to=(0.0, 0.0)))
    pump(lambda: "Refused" in app._flash_text)
    report["refusal"] = app._flash_text
    # a corrupted window is detected and resynchronised from the server's save
    pos, quat = app.session.world.pose("red1")
    app.session.world.set_pose("red1", pos + [0.0, 2.0, 0.0], quat)
    old = app.session
    fut = asyncio.run_coroutine_threadsafe(blue.act({"type": "end_turn", "player": "Blue"}), loop)
    pump(lambda: fut.done() and srv.desyncs and srv.all_confirmed >= 4)
    report["desync_body"] = srv.desyncs[0]["difference"]["body"]
    report["resynced"] = (app.session is not old and app.session is link.client.game
                          and app.session.state_hash() == srv.hashes[4])
    app.screenshot(Path(sys.argv[2]) / "online.png")
    link.close()
    app.destroy()
    on(blue.close())
    blue.shutdown()
    on(srv.close())
    print("REPORT " + json.dumps(report), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
