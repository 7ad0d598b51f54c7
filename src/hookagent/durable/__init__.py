"""Durable runs: a run's journal around the kernel's seams, and the runs kept in a store.

`layer.DurableLayer` wraps the seams (`kernel.seams`) over a `seam.Journal`; `journal.Durable`
is that journal over a `Store`; `runner.DurableRuns` starts, claims and leases runs.
"""
