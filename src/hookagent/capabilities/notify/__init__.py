"""Notifications: a JSON message to webhooks on every question a run asks a human (see
`capability`), with a Slack-compatible `text` and a link to the inbox of `hookagent serve`."""

from hookagent.capabilities.notify._capability import Delivery, Notify
from hookagent.capabilities.notify._delivery import Retry, check_url

__all__ = ["Delivery", "Notify", "Retry", "check_url"]
