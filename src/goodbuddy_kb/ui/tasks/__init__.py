"""The Tasks tab and the progress text the other areas share."""
