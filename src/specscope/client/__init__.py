"""specscope.client"""
