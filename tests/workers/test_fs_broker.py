"""The serverless broker of the embedded default never hands a consumer half a message."""

from __future__ import annotations

import threading
from pathlib import Path

from kombu import Connection, Exchange, Queue

from pbm.config import Settings
from workers.app import FILESYSTEM_TRANSPORT, make_celery


def fs_connection(folder: Path) -> Connection:
    folder.mkdir(parents=True, exist_ok=True)
    return Connection(
        transport=FILESYSTEM_TRANSPORT,
        transport_options={"data_folder_in": str(folder), "data_folder_out": str(folder),
                           "store_processed": False, "polling_interval": 0.001,
                           "control_folder": str(folder / "control")},
    )


def test_every_message_arrives_whole_while_publisher_and_consumer_race(tmp_path: Path) -> None:
    total = 1500
    queue = Queue("race", Exchange("race", type="direct"), routing_key="race")
    received: list[int] = []
    errors: list[BaseException] = []

    def consume() -> None:
        with fs_connection(tmp_path / "q") as conn, conn.SimpleQueue(queue) as simple:
            while len(received) < total:
                try:
                    message = simple.get(block=True, timeout=90)
                except BaseException as exc:  # a torn file would surface here
                    errors.append(exc)
                    return
                received.append(int(message.payload["n"]))
                message.ack()

    with fs_connection(tmp_path / "q") as conn:
        queue(conn.default_channel).declare()  # bound before anything is published
    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    with fs_connection(tmp_path / "q") as conn, conn.SimpleQueue(queue) as simple:
        for n in range(total):
            simple.put({"n": n, "padding": "x" * 2000})
    consumer.join(timeout=120)
    assert not errors, (errors, len(received), sorted(set(range(total)) - set(received))[:10])
    assert sorted(received) == list(range(total))


def test_the_embedded_default_uses_the_atomic_transport(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, redis_url=None,  # type: ignore[call-arg]
                        broker_polling_interval=0.05)
    app = make_celery(settings)
    assert app.conf.broker_url == "filesystem://"
    assert app.conf.broker_transport == FILESYSTEM_TRANSPORT
    assert app.conf.broker_transport_options["polling_interval"] == 0.05
    with app.connection_for_write() as conn:
        assert type(conn.transport).__module__ == "workers.fs_broker"


def test_redis_brokers_keep_kombus_redis_transport(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path,  # type: ignore[call-arg]
                        redis_url="redis://127.0.0.1:6379/0")
    app = make_celery(settings)
    assert app.conf.broker_transport is None
    assert "polling_interval" not in app.conf.broker_transport_options


def test_exchange_tables_appear_whole_while_processes_bind_and_publish(tmp_path: Path) -> None:
    """New exchange tables race: binders create them while publishers read them."""
    rounds, binders = 40, 4
    problems: list[BaseException] = []
    folder = tmp_path / "q"

    def bind(exchange: str, index: int) -> None:
        try:
            with fs_connection(folder) as conn:
                conn.default_channel.exchange_declare(exchange=exchange, type="direct")
                conn.default_channel.queue_declare(queue=f"{exchange}-{index}")
                conn.default_channel.queue_bind(queue=f"{exchange}-{index}", exchange=exchange,
                                                routing_key=f"{exchange}-{index}")
        except BaseException as exc:
            problems.append(exc)

    def read(exchange: str) -> None:
        try:
            with fs_connection(folder) as conn:
                for _ in range(200):
                    conn.default_channel.get_table(exchange)
        except BaseException as exc:
            problems.append(exc)

    for n in range(rounds):
        exchange = f"ex{n}"
        threads = [threading.Thread(target=read, args=(exchange,))]
        threads += [threading.Thread(target=bind, args=(exchange, i)) for i in range(binders)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not problems, problems[:3]
        with fs_connection(folder) as conn:
            bound = {row.queue for row in conn.default_channel.get_table(exchange)}
        assert bound == {f"{exchange}-{i}" for i in range(binders)}, (exchange, bound)
