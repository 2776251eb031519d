"""marjolet.rl"""
