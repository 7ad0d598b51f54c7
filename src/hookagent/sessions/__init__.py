"""Kept runs put to work again: resumed, submitted, forked, replayed under changed hooks.

What the command line and `hookagent serve` share. Above the agent: these rebuild agents
from what a run kept, where `hookagent.durable` below only keeps and reopens runs.
"""
