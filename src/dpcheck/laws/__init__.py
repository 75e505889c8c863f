"""Noise laws and mechanisms as objects (issue 35)."""
