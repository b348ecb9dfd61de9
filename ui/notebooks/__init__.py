"""Taking the lesson home: a page's view as a Jupyter notebook (issue 57), written with nbformat,
in the learner's language, that rebuilds the page's numbers from the same inputs. cells.py holds
what every kind shares; each other module is one page's notebook."""
