"""What the pages share: settings, cached calls into core, figures, and the two languages."""
