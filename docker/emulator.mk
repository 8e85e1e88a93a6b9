# Emulator and image targets, included by the top-level Makefile.
#   make image                          build the `validate serve` image (FROM scratch, no pull)
#   make emulator-up [EMULATOR=vnext]   start an emulator from docker/compose.yaml (vnext|classic|serve)
#   make emulator-down                  stop and remove every emulator the compose file started
SERVE_IMAGE ?= cdv-serve:dev
EMULATOR    ?= vnext
COMPOSE     ?= docker compose -f docker/compose.yaml

.PHONY: image emulator-up emulator-down

image:            ## build the validate serve image $(SERVE_IMAGE) from docker/Dockerfile
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o docker/validate ./cmd/validate
	docker build -t $(SERVE_IMAGE) docker/
	rm -f docker/validate

emulator-up:      ## start EMULATOR (vnext, classic or serve) and wait until it is healthy
	$(COMPOSE) up -d --wait $(EMULATOR)

emulator-down:    ## stop and remove the emulators
	$(COMPOSE) down --remove-orphans
