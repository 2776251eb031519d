"""marjolet.web"""
