"""The learner writes attention: one exercise per step (exercise.py: the task, the names, the box,
the verdict, the maps and the hint), used by the /practice page (page.py: its step and head
pickers) and under each attention step of the walkthrough (exercise.folded)."""
