"""Date and number formats per language (Django's ``FORMAT_MODULE_PATH``): Django's own English
formats are American (12/05/2026); ours read the same on both sides of the Atlantic. Korean keeps
Django's (2026-12-5)."""
