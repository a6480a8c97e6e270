"""Tournaments of DAIDE bots on an in-process server: line-ups, schedules, scoring and ratings."""
