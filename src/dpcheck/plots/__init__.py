"""Figures (matplotlib, Agg backend): where a person would rather look than read."""
