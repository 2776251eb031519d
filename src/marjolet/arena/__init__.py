"""marjolet.arena"""
