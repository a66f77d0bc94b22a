"""Environment variables bound to resource fields, read when a run initializes the resource.

A field is bound with ``Annotated[T, dg.EnvVar("NAME")]`` and keeps the default it declares.
Dagster's own ``EnvVar`` values fail a run when the variable is unset, and every MGQA variable is
optional; so the binding is resolved here instead, when Dagster initializes the resource for a run
(``create_resource``):

- a bound field still holding its declared default takes the variable's value when the variable
  is set and not empty, and keeps the default otherwise;
- any other value (given in code, in run config or in the launchpad) wins over the variable;
- the result is validated like any resource field (``"8"`` becomes ``8`` for an ``int`` field).

Nothing reads the environment when the code location is imported. Code that uses a resource
outside a run (the ``mgqa`` CLI, scripts) calls :meth:`EnvConfigurableResource.resolved` itself.
"""

from __future__ import annotations

from typing import Self

import dagster as dg


def bound_variable(resource_cls: type[dg.ConfigurableResource], field: str) -> str | None:
    """The name of the environment variable bound to ``field``, or None."""
    info = resource_cls.model_fields[field]
    return next((m.env_var_name for m in info.metadata if isinstance(m, dg.EnvVar)), None)


class EnvConfigurableResource(dg.ConfigurableResource):
    """A resource whose fields may be bound to environment variables (see the module docstring)."""

    def create_resource(self, context: dg.InitResourceContext) -> Self:
        return self.resolved()

    def resolved(self) -> Self:
        """This resource with its bound fields, and those of its nested resources, read from the
        environment."""
        updates = {}
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if isinstance(value, EnvConfigurableResource):
                nested = value.resolved()
                if nested is not value:
                    updates[name] = nested
                continue
            variable = bound_variable(type(self), name)
            if variable is None or value != info.default:
                continue
            raw = dg.EnvVar(variable).get_value()
            if raw:
                updates[name] = raw
        return self.replace(**updates) if updates else self

    def replace(self, **updates) -> Self:
        """A validated copy with ``updates`` applied."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return type(self)(**(values | updates))
