# Emulator and image targets, included by the top-level Makefile.
#   make image                          build the `validate serve` image (FROM scratch, no pull)
#   make emulator-up [EMULATOR=vnext]   start an emulator from docker/compose.yaml (vnext|classic|serve)
#   make emulator-down                  stop and remove every emulator the compose file started
SERVE_IMAGE ?= cdv-serve:dev
EMULATOR    ?= vnext
# Compose v2 (the docker plugin) when present, else v1 (docker-compose, as Debian packages it).
COMPOSE_BIN := $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)
COMPOSE     ?= $(COMPOSE_BIN) -p cosmosdv-emulators -f docker/compose.yaml
# v1 has no --wait; there `make emulator-up` returns once the container runs, and validate's own
# readiness checks (docker/README.md) do the waiting.
COMPOSE_WAIT := $(if $(filter docker-compose,$(COMPOSE_BIN)),,--wait)

.PHONY: image emulator-up emulator-down

image:            ## build the validate serve image $(SERVE_IMAGE) from docker/Dockerfile
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o docker/validate ./cmd/validate
	docker build -t $(SERVE_IMAGE) docker/
	rm -f docker/validate

emulator-up:      ## start EMULATOR (vnext, classic or serve) and wait until it is healthy
	$(COMPOSE) up -d $(COMPOSE_WAIT) $(EMULATOR)

emulator-down:    ## stop and remove the emulators
	$(COMPOSE) down --remove-orphans
