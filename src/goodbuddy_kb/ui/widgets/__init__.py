"""Widgets and helpers two or more areas use: table model, switch, theme, reference view."""
