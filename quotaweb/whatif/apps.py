from django.apps import AppConfig


class WhatifConfig(AppConfig):
    name = "quotaweb.whatif"
    label = "whatif"
