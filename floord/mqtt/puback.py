"""A plain PUBACK read without paho building two objects for it.

Every QoS 1 message floord publishes comes back as a PUBACK of two bytes: the message
id, nothing else (MQTT 3.1.1 has nothing else; MQTT 5 leaves out a success's reason code
and properties). paho-mqtt 2 still builds a `ReasonCode` and a `Properties` object for
each one, through a decorator, a named tuple and a struct unpack: in a burst that is
about an eighth of the daemon's CPU, more than the journal's encoding of the events
(py-spy on `bench/latency.py`'s burst). `fast_pubacks` gives one paho client a
handler that reads such a PUBACK's id straight from its two bytes and acknowledges it
through paho's own `_do_on_publish` with one success code and one empty property set,
made once for the client. Any other PUBACK, and every PUBCOMP, goes to paho's own
handler: what paho does with an acknowledgement is the same either way.

It reaches into paho-mqtt 2's client (`_in_packet`, `_out_messages`, its mutex and
`_do_on_publish`), as `floord.mqtt.confirm` does; pyproject keeps aiomqtt (and so paho)
below 3; `tests/test_puback_fast_path.py` tests it on paho clients and on a real
Mosquitto, and every batch of `tests/test_publish_batch.py` goes through it. A client
without those attributes is left as it is.
"""

from __future__ import annotations

from typing import Any, Literal

import paho.mqtt.client as paho
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

_NEEDS = ("_in_packet", "_out_messages", "_out_message_mutex", "_do_on_publish", "_easy_log")


def fast_pubacks(client: paho.Client) -> bool:
    """Give `client` the fast PUBACK handler; False (nothing changed) if its paho lacks
    what the handler reads, or it has it already."""
    if getattr(client, "_floord_fast_pubacks", False):
        return False
    if not all(hasattr(client, name) for name in _NEEDS):
        return False
    original = client._handle_pubackcomp
    success = ReasonCode(PacketTypes.PUBACK)
    no_properties = Properties(PacketTypes.PUBACK)

    def handle(cmd: Literal["PUBACK", "PUBCOMP"]) -> paho.MQTTErrorCode:
        packet: Any = client._in_packet["packet"]
        if cmd != "PUBACK" or len(packet) != 2:
            return original(cmd)  # a reason code or properties (MQTT 5), or a PUBCOMP
        mid = (packet[0] << 8) | packet[1]
        client._easy_log(paho.MQTT_LOG_DEBUG, "Received %s (Mid: %d)", cmd, mid)
        with client._out_message_mutex:
            if mid in client._out_messages:
                # Only inform the client the message has been sent once (as paho does).
                return client._do_on_publish(mid, success, no_properties)
        return paho.MQTTErrorCode.MQTT_ERR_SUCCESS

    # An attribute of the instance: paho's `_packet_handle` calls it by `self.`.
    client._handle_pubackcomp = handle  # type: ignore[method-assign]
    client._floord_fast_pubacks = True  # type: ignore[attr-defined]
    return True
